#!/usr/bin/env bash
# Oracle for znmgo-mgo-berry-path: eight pw.x runs (SCF and Berry phase at u = 1/2, 0.49, 0.44, 0.382 in the
# clamped ZnO cell, the prompt's settings), the printed polarizations unwrapped onto the branch of the reference
# by continuity with the quantum e c / Omega, and the finite-difference Born charge of O; writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/berry_path.py"
