#!/usr/bin/env bash
# Oracle for hbn-sliding-potential-step: the vacuum-level steps read from the staged planar averages (windows 4 A
# away from the atoms and from the dipole correction's ramp) and the AB dipole per area, p = -eps0 dV/e, by the
# study's path reader hbn_path.py (the same file as in hbn-sliding-barrier's solution).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python3 "$here/hbn_path.py" path > path.json
python3 - <<'PY'
import json
p = json.load(open("path.json"))
answer = {
    "delta_V_meV": {"AB": p["1.00"]["delta_V_meV"], "SP": p["1.50"]["delta_V_meV"],
                    "BA": p["2.00"]["delta_V_meV"], "quarter": p["1.25"]["delta_V_meV"]},
    "dipole_AB_pC_per_m": p["1.00"]["dipole_pC_per_m"],
}
json.dump(answer, open("answer.json", "w"), indent=1)
print(json.dumps(answer))
PY
