#!/usr/bin/env bash
# Oracle for si-eos-analysis: parse the seven pw.x outputs in the current folder, fit a third-order
# Birch-Murnaghan EOS per atom, and write answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/bm_fit.py" scf_*.out > answer.json
cat answer.json
