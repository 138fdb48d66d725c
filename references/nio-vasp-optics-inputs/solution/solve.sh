#!/usr/bin/env bash
# Oracle for nio-vasp-optics-inputs: build the AFM-II magnetic cell of NiO with pymatgen and write INCAR, KPOINTS,
# POSCAR and POTCAR.spec for a static PBE+U (U_eff = 6.2 eV on Ni d) LOPTICS run with many empty bands.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
