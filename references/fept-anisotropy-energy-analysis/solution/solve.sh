#!/usr/bin/env bash
# Oracle for fept-anisotropy-energy-analysis: the anisotropy energy of L1_0 FePt on both meshes, the anisotropy
# constant, the anisotropy field and the easy axis from the four staged pw.x outputs. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/anisotropy.py" . > answer.json
cat answer.json
