#!/usr/bin/env bash
# Oracle for optics-inputs: LOPTICS inputs for diamond Si (NBANDS far above the default, NEDOS 3000, dense mesh).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
