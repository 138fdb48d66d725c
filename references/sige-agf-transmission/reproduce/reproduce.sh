#!/usr/bin/env bash
# Reference values of sige-agf-transmission. make_blocks.py regenerates the staged sige_device.h5 (LAMMPS, Tersoff
# 1989: lattices, lead blocks from bulk cells, the relaxed intermixed superlattice, force constants by central
# differences of 0.0025 A; about a minute) into OUTDIR/blocks/ (binary, compared with the staged file by the
# study's tests, not here); caroli.py computes the reference values by routes independent of the oracle (lead
# channels from the quadratic eigenproblem, Caroli transmission and eigenvalues); traps.py the common errors.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/blocks/, OUTDIR/values.json and OUTDIR/traps.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-agf-transmission-reproduce}" && cd "${1:-sige-agf-transmission-reproduce}" && pwd)
export OMP_NUM_THREADS=1
python3 "$here/make_blocks.py" "$out/blocks"
python3 "$here/caroli.py" "$out/blocks/sige_device.h5" "$out/raw"
python3 "$here/traps.py" "$out/blocks/sige_device.h5" "$out" > /dev/null
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
raw = json.loads((out / "raw" / "values.json").read_text())
lab = lambda f: f"{f:g}".replace(".", "p")
values = {"Xi": raw["Xi"], "std_tau": raw["std_tau"]}
for i, f in enumerate([1.0, 2.0, 3.5, 5.0, 6.0, 7.25, 8.5, 10.25, 11.5]):
    values[f"n_Si_{lab(f)}THz"], values[f"n_Ge_{lab(f)}THz"] = raw["n_Si"][i], raw["n_Ge"][i]
(out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
PY
