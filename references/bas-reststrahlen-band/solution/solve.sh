#!/usr/bin/env bash
# Oracle for bas-reststrahlen-band: phonopy force constants of the two staged pw.x force outputs (acoustic sum rule
# imposed) mapped onto a 4x4x4 supercell of the conventional cube; eps(omega) with gamma = 2 cm^-1 for ordered 11BAs
# and, averaged over eight configurations of random boron isotopes, for natural BAs and for 15 % 10B; the band edges
# of Re eps < 0 and < -1, the minimum of Re eps and the 10B fraction where that minimum crosses zero.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PYTHONPATH="$CMB_SOLUTION_DIR${PYTHONPATH:+:$PYTHONPATH}" python3 "$CMB_SOLUTION_DIR/reststrahlen.py"
