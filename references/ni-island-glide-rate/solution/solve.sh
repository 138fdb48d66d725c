#!/usr/bin/env bash
# Oracle for ni-island-glide-rate: the relaxed fcc state and the mass-weighted Hessians of the free atoms at it and
# at the staged saddle (0.005 A displacements), Vineyard's prefactor and the rate at 300 K (ni_saddle.py rate,
# LAMMPS with the staged Ni.adp); answer.json in the current folder. Seconds of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
python3 "$sol/ni_saddle.py" rate Ni.adp saddle.data initial.data rate --temperature 300 > /dev/null
python3 - <<'PY'
import json
r = json.load(open("rate/rate.json"))
json.dump({"prefactor_THz": r["prefactor_THz"], "rate_300K_per_s": r["rate_per_s"]}, open("answer.json", "w"), indent=1)
PY
cat answer.json
