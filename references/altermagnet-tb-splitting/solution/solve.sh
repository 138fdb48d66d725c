#!/usr/bin/env bash
# Oracle for altermagnet-tb-splitting: diagonalise the 2x2 Bloch Hamiltonian of each spin channel on a 400x400
# grid and along the high-symmetry path (numpy), write answer.json here. About a second.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/splitting.py" answer.json
