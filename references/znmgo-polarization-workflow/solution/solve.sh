#!/usr/bin/env bash
# Oracle for znmgo-polarization-workflow: chain the step solutions (staged under steps/) — the pw.x SCF and
# Berry-phase inputs of the two ZnO end points (znmgo-berry-phase-inputs), the sixth-order
# Landau fit of each energy-polarization path (landau-transition-fit), then the boundary, spinodal and alpha = 0
# compositions of the coefficients interpolated linearly in the Mg fraction (znmgo-phase-boundary) — and write
# the final quantities to answer.json here. A few seconds.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
CMB_SOLUTION_DIR="$sol/steps/znmgo-berry-phase-inputs" bash "$sol/steps/znmgo-berry-phase-inputs/solve.sh" > /dev/null
python3 "$sol/chain.py" "$sol/steps"
