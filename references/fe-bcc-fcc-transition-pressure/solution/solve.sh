#!/usr/bin/env bash
# Oracle for fe-bcc-fcc-transition-pressure: third-order Birch-Murnaghan fits of the 44 staged pw.x outputs (scipy
# least squares in the four parameters), the PBE pressure of equal enthalpy of ferromagnetic bcc and non-magnetic
# fcc iron, the two volumes and the bcc moment there, and the LDA enthalpy difference at zero pressure.
# Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/transition.py"
