#!/usr/bin/env bash
# Oracle for slab-dipole-inputs: dipole-corrected relaxation inputs for the staged CO/Pt(111) slab.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
