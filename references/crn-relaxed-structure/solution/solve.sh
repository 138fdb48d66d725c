#!/usr/bin/env bash
# Oracle for crn-relaxed-structure: parse the staged, interrupted pw.x vc-relax output (the last completed SCF
# cycle, pw.x's convergence errors against its thresholds, the latest geometry block) and search Cr-Cr neighbours
# in periodic images. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse_relax.py" relax.out > answer.json
cat answer.json
