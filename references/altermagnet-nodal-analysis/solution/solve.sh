#!/usr/bin/env bash
# Oracle for altermagnet-nodal-analysis: diagonalise the model's 2x2 matrices of both spin channels on the 48 x 48
# grid, take E_up - E_down band by band, test the four directions through Gamma, find the largest splitting;
# writes answer.json here (numpy only, about a second).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/nodal.py" answer.json
