#!/usr/bin/env bash
# Oracle for fe-eos-analysis: Birch-Murnaghan fits of the 66 staged pw.x outputs (scipy least squares in the four
# parameters), the ferromagnet's lattice constant, bulk modulus and interpolated moment, and the phase energy
# differences, per functional. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse_eos.py"
