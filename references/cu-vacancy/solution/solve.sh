#!/usr/bin/env bash
# Oracle for cu-vacancy: relax the perfect 4x4x4 fcc Cu supercell at zero pressure in LAMMPS, remove one atom,
# relax atoms and cell at zero pressure, and take E_f = E(N-1) - (N-1)/N E(N) and the formation volume.
# Writes answer.json into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/vacancy.py" Cu_u3.eam > answer.json
cat answer.json
