#!/usr/bin/env bash
# Oracle for ruo2-snte-soc-vasp-inputs: keep the staged interface POSCAR, turn the collinear moments of
# INCAR.collinear into vectors along the surface normal, and write INCAR, KPOINTS and POTCAR.spec for the
# non-collinear PBE+U+SOC self-consistent run on a dense mesh (standard library only, well under a second).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py" .
