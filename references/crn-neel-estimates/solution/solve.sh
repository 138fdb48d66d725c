#!/usr/bin/env bash
# Oracle for crn-neel-estimates: mean-field Neel/Curie temperatures of three collinear orders and the RPA
# (Tyablikov) Neel temperature of AFM-[110]2 for the model exchange constants in the staged cell. Writes answer.json.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/neel.py" POSCAR > answer.json
cat answer.json
