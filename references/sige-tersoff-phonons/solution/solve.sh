#!/usr/bin/env bash
# Oracle for sige-tersoff-phonons: LAMMPS relaxations with the staged SiCGe.tersoff (Si(D), Ge), phonopy finite
# displacements in 3x3x3 supercells of the conventional cell with LAMMPS forces (one rerun per crystal), and the
# Gamma and X frequencies of Si, Ge and coherently strained Ge into answer.json. Seconds of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/phonons.py" > answer.json
cat answer.json
