#!/usr/bin/env bash
# Oracle for mass-interface-transmission: atomistic Green's functions (decimated lead surface Green's functions,
# retarded +i eta converged towards zero) for the two-mass harmonic chain; writes answer.json and
# transmission.csv into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/agf.py" > answer.json
cat answer.json
