#!/usr/bin/env bash
# Oracle for graphite-binding-analysis: parse the 40 pw.x outputs in the current folder, tabulate both binding
# curves, fit the PBE-D3 one (cubic within 0.5 A of the lowest point), derive c_eq, E_b and C33, read PBE alone
# at c_eq; writes binding_curve.csv and answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse.py"
