#!/usr/bin/env bash
# Oracle for nio-u-stiffness-magnetovolume: Birch-Murnaghan B0 and the slope of the Ni moment against ln V for each
# U series of the staged pw.x outputs, then dB0/dU. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/stiffness.py"
