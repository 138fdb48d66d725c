#!/usr/bin/env bash
# Oracle for cu-qha-versus-md: classical quasi-harmonic lattice constants of fcc Cu (phonopy with classical
# occupation, LAMMPS forces and energies with the staged potential) at 100-500 K, against the production-block
# averages of the staged NPT logs; reports a_QHA, a_MD - a_QHA and the ratio of the expansion coefficients.
# Writes answer.json into the current folder.
set -euo pipefail
export OMP_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/qvm.py" Cu_u3.eam . > answer.json
cat answer.json
