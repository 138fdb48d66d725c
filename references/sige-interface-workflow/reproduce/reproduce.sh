#!/usr/bin/env bash
# Reference values of sige-interface-workflow. The staged sige_intermixed.data is regenerated (make_data.py);
# the reference values are those of its three steps, made by the project's pipeline
# (../sige-agf-transmission/reproduce/make_blocks.py builds the blocks of the same relaxed intermixed interface,
# ../sige-agf-transmission/reproduce/caroli.py and ../sige-reflection-specularity/reproduce/current.py the values),
# and variants.py runs the workflow oracle's stage a with the alternatives and errors of fairness.yaml. LAMMPS and
# Python, a few minutes.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/workspace/sige_intermixed.data, OUTDIR/values.json, OUTDIR/variants.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-interface-workflow-reproduce}" && cd "${1:-sige-interface-workflow-reproduce}" && pwd)
export OMP_NUM_THREADS=1
mkdir -p "$out/workspace"
python3 "$here/make_data.py" "$out/workspace/sige_intermixed.data"
cp /usr/share/lammps/potentials/SiCGe.tersoff "$out/workspace/"
python3 "$here/../../sige-agf-transmission/reproduce/make_blocks.py" "$out/blocks"
python3 "$here/../../sige-agf-transmission/reproduce/caroli.py" "$out/blocks/sige_device.h5" "$out/b"
python3 "$here/../../sige-reflection-specularity/reproduce/current.py" "$out/blocks/sige_device.h5" "$out/c"
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
b = json.loads((out / "b" / "values.json").read_text())
c = json.loads((out / "c" / "values.json").read_text())
meta = json.loads((out / "blocks" / "meta.json").read_text())
lab = lambda f: f"{f:g}".replace(".", "p")
values = {"c_Ge_strained_angstrom": meta["c_Ge_strained"], "Xi": b["Xi"], "p_all": c["p_all"], "R_0": c["R_0"],
          "p_0": c["p_0"]}
for i, f in enumerate([1.0, 2.0, 3.5, 5.0, 6.0, 7.25, 8.5, 10.25, 11.5]):
    values[f"n_Si_{lab(f)}THz"], values[f"n_Ge_{lab(f)}THz"] = b["n_Si"][i], b["n_Ge"][i]
for i, f in enumerate([5.0, 6.0, 7.25, 8.5, 10.25, 11.5]):
    values[f"n_0_{lab(f)}THz"] = c["n_0"][i]
(out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
PY
python3 "$here/variants.py" "$out/workspace" "$out"
