#!/usr/bin/env bash
# Oracle for sige-nemd-superlattice-conductivity: reads the staged log.lammps, temp_profile.dat and sige.data and
# writes answer.json here (bath temperature difference, effective conductivity between the baths, interface share).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/superlattice.py" . > answer.json
cat answer.json
