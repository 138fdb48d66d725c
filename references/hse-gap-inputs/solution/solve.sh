#!/usr/bin/env bash
# Oracle for hse-gap-inputs: HSE06 (HFSCREEN 0.2, AEXX default 0.25) SCF inputs for zincblende GaAs.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
