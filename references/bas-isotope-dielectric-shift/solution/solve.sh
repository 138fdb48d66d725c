#!/usr/bin/env bash
# Oracle for bas-isotope-dielectric-shift: phonopy force constants of the two staged pw.x force outputs (acoustic sum
# rule imposed) mapped onto a 4x4x4 supercell of the conventional cube (512 atoms); for 5 %, 50 % and 95 % 10B, four
# configurations with an exact composition; Gamma modes, Born-charge oscillator strengths, S-weighted moments.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PYTHONPATH="$CMB_SOLUTION_DIR${PYTHONPATH:+:$PYTHONPATH}" python3 "$CMB_SOLUTION_DIR/enrich.py"
