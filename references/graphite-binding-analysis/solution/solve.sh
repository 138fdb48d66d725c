#!/usr/bin/env bash
# Oracle for graphite-binding-analysis: parse the 32 pw.x outputs in the current folder, fit the PBE-D3 binding
# curve (cubic within 0.5 A of the lowest point), derive c_eq, E_b and C33, read PBE alone at c_eq; writes
# answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse.py"
