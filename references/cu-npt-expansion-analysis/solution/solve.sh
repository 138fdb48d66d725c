#!/usr/bin/env bash
# Oracle for cu-npt-expansion-analysis: average (4 V / N)^(1/3) over the production block of each staged NPT log,
# then alpha_L(300 K) = (1/a) da/dT from a straight line through 200, 300 and 400 K. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/expansion.py" \
    npt_100K.log npt_200K.log npt_300K.log npt_400K.log npt_500K.log > answer.json
cat answer.json
