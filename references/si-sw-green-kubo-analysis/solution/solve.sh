#!/usr/bin/env bash
# Oracle for si-sw-green-kubo-analysis: the Green-Kubo analysis of the staged J.dat and log.lammps (numpy only).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/gk.py" . > answer.json
cat answer.json
