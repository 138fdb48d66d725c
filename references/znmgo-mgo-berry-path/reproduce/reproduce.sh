#!/usr/bin/env bash
# Re-run the reference path of znmgo-mgo-berry-path (eight pw.x 6.7 runs, the prompt's settings) and, with
# --alternatives, the same path with denser strings (nppstr 12 on 8x8, SCF 8x8x4); writes OUTDIR/values.json.
# About 40 s of CPU for the reference path on this machine (and twice that for the denser one).
#
# Usage: reproduce.sh [OUTDIR] [--alternatives]      (default: ./mgo-berry-reproduce)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-mgo-berry-reproduce}" && cd "${1:-mgo-berry-reproduce}" && pwd)
ws="$root/tasks/znmgo-polarization/znmgo-mgo-berry-path/workspace"
run() {  # folder, extra options
  mkdir -p "$out/$1" && cp -r "$ws/pseudo" "$out/$1/"
  (cd "$out/$1" && python3 "$here/../solution/berry_path.py" "${@:2}" >/dev/null)
}
run reference
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
a = json.loads((out / "reference" / "answer.json").read_text())
keys = {"P_u0490": "P_u0490_C_per_m2", "P_u0440": "P_u0440_C_per_m2", "P_u0382": "P_u0382_C_per_m2",
        "Zstar_O_33": "Zstar_O_33"}
(out / "values.json").write_text(json.dumps({k: a[v] for k, v in keys.items()}, indent=1) + "\n")
PY
if [ "${2:-}" = "--alternatives" ]; then run denser --nppstr 12 --kplane 8; cat "$out/denser/answer.json"; fi
