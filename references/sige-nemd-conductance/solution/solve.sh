#!/usr/bin/env bash
# Oracle for sige-nemd-conductance: reads the staged log.lammps, temp_profile.dat and sige.data and writes
# answer.json here (heat flux, interface temperature drop, conductance and its block standard error).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/conductance.py" . > answer.json
cat answer.json
