#!/usr/bin/env bash
# Oracle for cu-eam-elastic: relax fcc Cu with the staged EAM potential in LAMMPS, then apply +-0.5% normal and
# shear strains (box units), relax the atoms at fixed cell, and take C11, C12, C44 from central differences of
# the stress. Writes answer.json into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/elastic.py" Cu_u3.eam > answer.json
cat answer.json
