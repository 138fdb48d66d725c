#!/usr/bin/env bash
# Runs the reference input set of sige-relax-inputs with LAMMPS (29 Sep 2021) on the staged sige.data and
# records the relaxed period (reference_run_Lz_angstrom, not graded); the staged data file is regenerated with
# ASE (make_data.py) and compared number by number. A second.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json and OUTDIR/workspace/sige.data
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-relax-inputs-reproduce}" && cd "${1:-sige-relax-inputs-reproduce}" && pwd)
mkdir -p "$out/workspace" "$out/run"
python3 "$here/make_data.py" "$out/workspace/sige.data"
cp "$out/workspace/sige.data" "$here/../in.lmp" "$out/run/"
cp /usr/share/lammps/potentials/SiCGe.tersoff "$out/run/"
(cd "$out/run" && lmp -in in.lmp -log log.lammps -screen none)
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
lines = (out / "run" / "relaxed.data").read_text().splitlines()
lo, hi = next(ln for ln in lines if ln.endswith("zlo zhi")).split()[:2]
values = {"units": "metal", "natoms": 256, "elements": ["Ge", "Si(D)"], "mass_type_1": 72.63,
          "mass_type_2": 28.0855, "reference_run_Lz_angstrom": float(hi) - float(lo)}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values, indent=2))
PY
