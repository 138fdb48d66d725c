#!/usr/bin/env bash
# Oracle for ni-island-saddle-certification: the mass-weighted finite-difference Hessian of the free atoms at the
# staged saddle (0.005 A displacements), its unstable mode, and the minima reached along it (ni_saddle.py certify,
# LAMMPS with the staged Ni.adp); answer.json in the current folder. Seconds of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
python3 "$sol/ni_saddle.py" certify Ni.adp saddle.data initial.data final.data certify > /dev/null
python3 - <<'PY'
import json
r = json.load(open("certify/certify.json"))
answer = {"n_negative_modes": r["n_negative_eigenvalues"], "unstable_mode_frequency_THz": r["unstable_mode_frequency_THz"],
          "connected_minima_eV": r["connected_minima_eV"]}
json.dump(answer, open("answer.json", "w"), indent=1)
PY
cat answer.json
