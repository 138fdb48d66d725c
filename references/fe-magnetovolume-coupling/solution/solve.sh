#!/usr/bin/env bash
# Oracle for fe-magnetovolume-coupling: third-order Birch-Murnaghan fits (scipy least squares in the four
# parameters) of the 44 staged pw.x outputs, the magnetovolume expansion and the magnetic energy at the
# ferromagnet's V0 in PBE and LDA, and the LDA volume derivative of the moment. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/magnetovolume.py" . > answer.json
cat answer.json
