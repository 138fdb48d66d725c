#!/usr/bin/env bash
# Oracle for si-sw-mfp-accumulation: read the staged phono3py kappa file with h5py and write answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/accumulate.py" kappa-m191919.hdf5 \
    > answer.json
cat answer.json
