#!/usr/bin/env bash
# Oracle for crn-wannier-tb2j-inputs: keep the staged relaxed POSCAR and write INCAR, KPOINTS, POTCAR.spec and
# tb2j.json (the wann2J.py arguments, with VASP 6's spin-channel prefixes wannier90.1 and wannier90.2).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py"
