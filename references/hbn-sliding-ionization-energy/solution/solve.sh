#!/usr/bin/env bash
# Oracle for hbn-sliding-ionization-energy: vacuum levels from the planar average 4 A clear of the atoms and of the
# dipole correction's ramp, minus the last highest occupied level of each relaxation (ionization.py); answer.json.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
python3 "$sol/ionization.py" path > ionization.json
python3 - <<'PY'
import json
r = json.load(open("ionization.json"))
answer = {"ionization_energy_eV": {
    "AB_top": r["1.00"]["top"], "AB_bottom": r["1.00"]["bottom"],
    "SP": (r["1.50"]["top"] + r["1.50"]["bottom"]) / 2, "AA": (r["0.00"]["top"] + r["0.00"]["bottom"]) / 2}}
json.dump(answer, open("answer.json", "w"), indent=1)
PY
cat answer.json
