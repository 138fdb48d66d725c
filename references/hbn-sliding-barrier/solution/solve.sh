#!/usr/bin/env bash
# Oracle for hbn-sliding-barrier: the relaxed distances (mean layer heights of the final coordinates) and energies
# (last '!' line of each converged relaxation, D3 included) relative to AB, per cell and per area, by the study's
# path reader hbn_path.py (the same file as in hbn-sliding-potential-step's solution).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python3 "$here/hbn_path.py" path > path.json
python3 - <<'PY'
import json
RY_MEV = 13605.693123
p = json.load(open("path.json"))
e0 = p["1.00"]["energy_ry"]
e_sp = (p["1.50"]["energy_ry"] - e0) * RY_MEV
answer = {
    "d_angstrom": {k: p[t]["d_angstrom"] for k, t in (("AA", "0.00"), ("AB", "1.00"), ("SP", "1.50"))},
    "energy_meV_per_cell": {"SP": e_sp, "AA": (p["0.00"]["energy_ry"] - e0) * RY_MEV},
    "barrier_mJ_per_m2": e_sp * 1e-3 * 1.602176634e-19 / p["1.00"]["area_m2"] * 1e3,
}
json.dump(answer, open("answer.json", "w"), indent=1)
print(json.dumps(answer))
PY
