#!/usr/bin/env bash
# Oracle for cu-phonons: finite-displacement phonons of fcc Cu at a = 3.615 A with phonopy (3x3x3 conventional
# supercell, 0.01 A displacement) and LAMMPS forces from the staged EAM potential; frequencies at X and the heat
# capacity per mole of atoms from a 24x24x24 Gamma-centred mesh. Writes answer.json into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/phonons.py" Cu_u3.eam > answer.json
cat answer.json
