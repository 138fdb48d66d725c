#!/usr/bin/env bash
# Oracle for si-dfpt-elastic-constants: matdyn.x on the staged force constants (asr = 'crystal') at
# |q| = 0.01 (2 pi/a) along [001] and [110], acoustic branches told apart by their eigenvectors, velocities
# omega/k, and the elastic constants rho v^2 with the density of the calculation's own cell. A few seconds.
set -euo pipefail
export OMP_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/elastic.py" si.fc --q 0.01 \
    > answer.json
cat answer.json
