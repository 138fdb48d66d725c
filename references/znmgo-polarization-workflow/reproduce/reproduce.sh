#!/usr/bin/env bash
# Run the chain of znmgo-polarization-workflow on its staged paths (data made by a model script) with the two
# step solutions and write OUTDIR/values.json with the final quantities. A few seconds of numpy/scipy.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./workflow-reproduce)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-workflow-reproduce}" && cd "${1:-workflow-reproduce}" && pwd)
mkdir -p "$out/steps" "$out/run"
cp -r "$root/references/landau-transition-fit/solution" "$out/steps/landau-transition-fit"
cp -r "$root/references/znmgo-phase-boundary/solution" "$out/steps/znmgo-phase-boundary"
cp "$root/tasks/znmgo-polarization/znmgo-polarization-workflow/workspace/"*.csv "$out/run/"
(cd "$out/run" && python3 "$here/../solution/chain.py" "$out/steps" >/dev/null)
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
a = json.loads((out / "run" / "answer.json").read_text())
keys = {"Ps_ZnO": "Ps_ZnO_C_per_m2", "Ps_Zn3MgO4": "Ps_Zn3MgO4_C_per_m2", "x_alpha_zero": "x_alpha_zero",
        "x_boundary": "x_boundary", "x_spinodal": "x_spinodal", "Ps_at_boundary": "Ps_at_boundary_C_per_m2",
        "order": "order"}
(out / "values.json").write_text(json.dumps({k: a[v] for k, v in keys.items()}, indent=1) + "\n")
PY
