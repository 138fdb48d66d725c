#!/usr/bin/env bash
# Oracle for si-sw-lattice: relax diamond (box/relax iso) and beta-tin (box/relax aniso, a and c free) Si with
# the staged Stillinger-Weber and Tersoff potentials in LAMMPS, and write answer.json into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/lattice.py" > answer.json
cat answer.json
