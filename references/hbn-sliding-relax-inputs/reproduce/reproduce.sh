#!/usr/bin/env bash
# The reference deck of hbn-sliding-relax-inputs: the relaxation at 1.25 a/sqrt(3) along the path, written by the
# study's deck generator (references/hbn-sliding-potential-step/reproduce/bilayer.py, the one the precomputed
# sliding path ran), checked identical to the reference pw.in beside reference.yaml, and the values pw.x reads
# from it in OUTDIR/values.json. The run itself is point s1.25 of that path (its reproduce.sh and cost.yaml).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-sliding-relax-inputs-reproduce)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-hbn-sliding-relax-inputs-reproduce}" && cd "${1:-hbn-sliding-relax-inputs-reproduce}" && pwd)
python3 "$here/../../hbn-sliding-potential-step/reproduce/bilayer.py" 1.25 3.30 relax hbn ./pseudo > "$out/pw.in"
cmp "$out/pw.in" "$here/../pw.in" || { echo "reproduce.sh: the generated deck differs from the reference pw.in" >&2; exit 1; }
python3 - "$out" <<'PY'
import json, re, sys
from pathlib import Path
out = Path(sys.argv[1])
deck = (out / "pw.in").read_text()
calc = re.search(r"calculation\s*=\s*'(\w+)'", deck).group(1)
vdw = re.search(r"vdw_corr\s*=\s*'([\w-]+)'", deck).group(1).lower()
species = re.search(r"ATOMIC_SPECIES\n(.*?)\nATOMIC_POSITIONS", deck, re.S).group(1).splitlines()
values = {
    "calculation": calc,
    "elements": sorted(line.split()[0] for line in species),
    "vdw_corr": {"dft-d3": "grimme-d3"}.get(vdw, vdw),
}
(out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
print(json.dumps(values))
PY
