#!/usr/bin/env bash
# Oracle for landau-transition-fit: least-squares fit of F = alpha P^2 + beta P^4 + gamma P^6 (energy per cell
# over the cell volume) to each staged path, then Ps, the well depth per formula unit, the intrinsic coercive
# field and the order from the sign of beta; writes answer.json here. Under a second.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/landau_fit.py" \
    ZnO=path_ZnO.csv Zn3MgO4=path_Zn3MgO4.csv
