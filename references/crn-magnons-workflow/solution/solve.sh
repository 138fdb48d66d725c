#!/usr/bin/env bash
# Oracle for crn-magnons-workflow: chain the step oracles.
#   stage 1   crn-relaxed-structure: analyse the interrupted relax.out (answer.json)
#   stage 2   a POSCAR of its latest geometry (write_poscar.py), then crn-wannier-tb2j-inputs' oracle writes
#             INCAR, KPOINTS, POTCAR.spec and tb2j.json for that POSCAR
#   stage 3   crn-monte-carlo-deck's oracle writes the VAMPIRE deck (input, crn.mat, crn.ucf) from the same POSCAR
# About a second of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"
CMB_SOLUTION_DIR="$steps/crn-relaxed-structure" bash "$steps/crn-relaxed-structure/solve.sh" > /dev/null
python3 "$sol/write_poscar.py" relax.out > POSCAR
CMB_SOLUTION_DIR="$steps/crn-wannier-tb2j-inputs" bash "$steps/crn-wannier-tb2j-inputs/solve.sh"
CMB_SOLUTION_DIR="$steps/crn-monte-carlo-deck" bash "$steps/crn-monte-carlo-deck/solve.sh"
cat answer.json
