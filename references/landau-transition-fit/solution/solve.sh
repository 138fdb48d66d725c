#!/usr/bin/env bash
# Oracle for landau-transition-fit: fit the equilibrium condition of the Landau free energy to each sample's
# polar points (linear least squares, then a nonlinear refinement on P itself), classify the order by the sign
# of b and compute Tc; writes answer.json here. About a second.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/landau_fit.py" \
    A=sample_A.csv:5.2e5 B=sample_B.csv:3.4e5
