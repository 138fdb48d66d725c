#!/usr/bin/env bash
# Oracle for bas-near-field-heat-flux: eps(omega) of ordered 11BAs (phonopy force constants of the staged forces,
# Born charge and eps_inf of ph.out, gamma = 2 cm^-1), the quasi-static near-field heat transfer coefficient
# between two half-spaces at 300 K across 10 nm and 100 nm, and the peak of its spectrum.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PYTHONPATH="$CMB_SOLUTION_DIR${PYTHONPATH:+:$PYTHONPATH}" python3 "$CMB_SOLUTION_DIR/nearfield.py"
