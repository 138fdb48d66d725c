#!/usr/bin/env bash
# Oracle for ruo2-snte-interface-vasp-inputs: strain the staged RuO2(100) slab onto the staged SnTe(110) slab,
# stack them with a 2.60 A gap and 15 A of vacuum, start the Ru layers with alternating moments and write INCAR,
# KPOINTS, POSCAR and POTCAR.spec for the PBE+U relaxation (numpy only, well under a second).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_inputs.py" .
