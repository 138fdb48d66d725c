#!/usr/bin/env bash
# Oracle for soc-anisotropy-inputs: collinear SCF plus two ICHARG = 11 spin-orbit runs (SAXIS x and z) for FePt.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
