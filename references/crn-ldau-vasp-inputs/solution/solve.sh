#!/usr/bin/env bash
# Oracle for crn-ldau-vasp-inputs: build the AFM-[110]2 magnetic cell of CrN with pymatgen and write INCAR,
# KPOINTS, POSCAR and POTCAR.spec for a PBE+U (U_eff = 3 eV on Cr d) relaxation of cell and ions.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
