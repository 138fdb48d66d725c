#!/usr/bin/env bash
# Oracle for sige-landauer-conductance: Caroli transmission of the staged sige_device.h5 (recursive Green's
# function, decimated leads, eta = 1e-10 of the largest block entry) at the midpoints of a 0.1 THz grid from 0 to
# 12 THz, integrated with the Bose derivative at 50, 100 and 300 K and in the classical limit, per unit area of
# the 2 x 2 cross-section; answer.json in the current folder. About 10 s of CPU (halving the grid moves the
# values by 0.1 %).
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/landauer.py" sige_device.h5 0.1 \
    > answer.json 2> xi_coarse.txt
cat answer.json
