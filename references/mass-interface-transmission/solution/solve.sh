#!/usr/bin/env bash
# Oracle for mass-interface-transmission: atomistic Green's functions for the chain of (001) planes in the staged
# interplanar_fc.json (two-plane principal layers, decimated leads, mode-resolved flux-normalised transmission,
# eta lowered until T + R = 1 within 1e-8); answer.json and transmission.csv in the current folder.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/chain.py" interplanar_fc.json > answer.json
cat answer.json
