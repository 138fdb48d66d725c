#!/usr/bin/env bash
# Oracle for si-sw-phonons: relax diamond Si with the staged Stillinger-Weber potential in LAMMPS, compute the
# force constants by finite displacements (phonopy + LAMMPS forces), and write the Gamma and X frequencies of
# the potential (no correction towards experiment) into answer.json in the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/phonons.py" > answer.json
cat answer.json
