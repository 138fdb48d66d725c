#!/usr/bin/env bash
# Oracle for si-sw-kappa: phono3py finite displacements with the prescribed supercell, displacement and q mesh,
# forces from LAMMPS with the staged Si.sw, and kappa(300 K) in the RTA and from the direct LBTE solution.
# Writes answer.json into the current folder (about 30 s on one core).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/kappa.py" > answer.json
cat answer.json
