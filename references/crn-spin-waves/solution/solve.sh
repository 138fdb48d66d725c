#!/usr/bin/env bash
# Oracle for crn-spin-waves: linear spin waves of AFM-[110]2 CrN in the staged cell from the linearised
# Landau-Lifshitz equations of the four Cr spins (TB2J constants converted to spins of length S). Writes answer.json.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/spinwaves.py" POSCAR > answer.json
cat answer.json
