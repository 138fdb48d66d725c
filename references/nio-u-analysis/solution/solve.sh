#!/usr/bin/env bash
# Oracle for nio-u-analysis: parse the six staged pw.x outputs (applied U, band gap from eigenvalues and
# occupations, Ni site moment) and fit d(gap)/dU over the runs with U > 0. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse_nio.py" nio_U*.out > answer.json
cat answer.json
