#!/usr/bin/env bash
# Oracle for hbn-undulated-stacking: the first-order stacking shift of the ripple and the local step from a
# three-term sine series fitted to the staged sliding table (undulate.py, numpy), answer.json here. Under a second.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/undulate.py" sliding_step.csv answer.json
