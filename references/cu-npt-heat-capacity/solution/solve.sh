#!/usr/bin/env bash
# Oracle for cu-npt-heat-capacity: the mean total energy (the enthalpy at the imposed 0 bar) over the production
# block of each staged NPT log, a quadratic <H>(T) per atom through the five temperatures, its derivative at 300
# and 500 K in J/(mol K) and the excess over 3 k_B. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/heat_capacity.py" \
    npt_100K.log npt_200K.log npt_300K.log npt_400K.log npt_500K.log > answer.json
cat answer.json
