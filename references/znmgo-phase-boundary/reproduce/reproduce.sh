#!/usr/bin/env bash
# Rebuild the staged coefficients of znmgo-phase-boundary from the upstream Landau step and the reference values.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./phase-boundary-reproduce)
#   1. runs landau-transition-fit's oracle fit (references/landau-transition-fit/solution/landau_fit.py) on that
#      task's staged energy-polarization paths (data made by a model script) and writes the sixth-order
#      coefficients, to 5 significant digits, as OUTDIR/workspace/landau_coefficients.json;
#   2. runs this task's solution (brentq on the linearly interpolated coefficients) on it: OUTDIR/values.json.
# A few seconds of numpy/scipy.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-phase-boundary-reproduce}" && cd "${1:-phase-boundary-reproduce}" && pwd)
mkdir -p "$out/workspace" "$out/fit"
ws="$root/tasks/znmgo-polarization/landau-transition-fit/workspace"
(cd "$out/fit" && python3 "$root/references/landau-transition-fit/solution/landau_fit.py" \
    ZnO="$ws/path_ZnO.csv" Zn3MgO4="$ws/path_Zn3MgO4.csv" >/dev/null)
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
fit = json.loads((out / "fit" / "answer.json").read_text())
doc = {
    "note": "Landau-Devonshire coefficients F(P) = alpha P^2 + beta P^4 + gamma P^6 (F in J/m^3, P in C/m^2) of the "
    "two ordered cells, fitted to the study's energy-polarization paths (data made by a model script)",
    "units": {"alpha": "J m C^-2", "beta": "J m^5 C^-4", "gamma": "J m^9 C^-6"},
}
for name, x in (("ZnO", 0.0), ("Zn3MgO4", 0.25)):
    doc[name] = {"x_Mg": x, **{k: float(f"{fit[name][k]:.5g}") for k in ("alpha", "beta", "gamma")}}
text = json.dumps(doc, indent=1)
(out / "workspace" / "landau_coefficients.json").write_text(text + "\n")
PY
(cd "$out" && python3 "$here/../solution/phase_boundary.py" workspace/landau_coefficients.json >/dev/null)
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
a = json.loads((out / "answer.json").read_text())
values = {"x_alpha_zero": a["x_alpha_zero"], "x_boundary": a["x_boundary"], "x_spinodal": a["x_spinodal"],
          "Ps_at_boundary": a["Ps_at_boundary_C_per_m2"], "order": a["order"]}
(out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
PY
