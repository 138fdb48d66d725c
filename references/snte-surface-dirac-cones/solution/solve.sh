#!/usr/bin/env bash
# Oracle for snte-surface-dirac-cones: build the 30-plane SnTe(110) slab of the p-orbital model, locate the
# surface Dirac point on the mirror line, its velocity across the line, and the effect of exchange fields along
# [1-10] and along the normal (numpy/scipy, about 2 CPU-seconds single-threaded); writes answer.json here.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/cones.py" answer.json
