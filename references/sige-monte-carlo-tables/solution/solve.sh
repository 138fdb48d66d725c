#!/usr/bin/env bash
# Oracle for sige-monte-carlo-tables: mode-matching AGF of the staged sige_device.h5 from the Si side and from the
# Ge side (the chain reversed) at the six frequencies, giving the channel counts and the channel-averaged
# transmission probabilities; the spectral averages from the Caroli Xi on a 0.1 THz midpoint grid and the lead
# bands at 1024 wave vectors, weighted by h nu dn/dT at 100 and 300 K; answer.json in the current folder. About
# 20 s of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/tables.py" sige_device.h5 0.1 \
    > answer.json 2> xi_coarse.txt
cat answer.json
