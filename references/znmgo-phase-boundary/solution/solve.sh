#!/usr/bin/env bash
# Oracle for znmgo-phase-boundary: interpolate the Landau coefficients linearly in the Mg fraction, solve
# alpha = 0, beta^2 = 3 alpha gamma and F(Ps) = 0 for x with brentq, and report Ps at the boundary and the order
# from the sign of beta there; writes answer.json here. Under a second.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/phase_boundary.py" landau_coefficients.json
