#!/usr/bin/env bash
# Oracle for cu-qha: quasi-harmonic approximation for fcc Cu with the staged EAM potential. Static energies and
# phonon free energies (phonopy, 3x3x3 supercell, LAMMPS forces) at seven lattice constants from -1.5% to +3%,
# PhonopyQHA with a Vinet EOS; reports the volumetric expansion coefficient, B_T and a at 300 K.
# Writes answer.json into the current folder.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/qha.py" Cu_u3.eam > answer.json
cat answer.json
