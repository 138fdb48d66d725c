#!/usr/bin/env bash
# Oracle for altermagnet-nodal-analysis: read bands.h5 (spin order from its attributes), take E_up - E_down band
# by band, test the four directions through Gamma, find the largest splitting; writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse.py" bands.h5
