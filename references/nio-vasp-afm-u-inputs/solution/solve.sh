#!/usr/bin/env bash
# Oracle for nio-vasp-afm-u-inputs: build the AFM-II magnetic cell of NiO with pymatgen and write INCAR, KPOINTS,
# POSCAR and POTCAR.spec for a PBE+U (U_eff = 6.2 eV on Ni d) relaxation of cell and ions.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
