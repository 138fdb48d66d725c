#!/usr/bin/env bash
# Re-create and run the reference input set of cu-lammps-npt-inputs (in.lmp + cu.data beside reference.yaml).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-lammps-npt-reproduce)
#   OUTDIR/runs/reference/   cu.data regenerated with ASE (6x6x6 conventional cells, a = 3.615 A, 864 atoms) and
#                            compared with the committed one, the reference in.lmp, Cu_u3.eam, log.lammps
#   OUTDIR/workspace/Cu_u3.eam  the staged potential, copied from LAMMPS's potentials folder (Debian lammps-data)
#   OUTDIR/values.json       what the run shows, keyed like reference.yaml: units and elements of the input,
#                            mean temperature and lattice constant over the last 30 ps of the 50 ps run
# Pinned: LAMMPS 29 Sep 2021 (Debian, serial), ASE 3.29.0 for the data file. About 1-2 minutes on one core.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ref="$here/.."
potential="$here/../../../tasks/cu-eam/cu-lammps-npt-inputs/workspace/Cu_u3.eam"
out=$(mkdir -p "${1:-cu-lammps-npt-reproduce}" && cd "${1:-cu-lammps-npt-reproduce}" && pwd)
mkdir -p "$out/workspace"
shipped="${CMB_LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}/Cu_u3.eam"  # the staged file's origin
if [[ -f "$shipped" ]]; then
    cp "$shipped" "$out/workspace/Cu_u3.eam"
    cmp -s "$shipped" "$potential" || echo "Cu_u3.eam: the staged file differs from $shipped" >&2
fi
lmp=$(command -v lmp || command -v lmp_serial || true)
[[ -n "$lmp" ]] || { echo "reproduce.sh: LAMMPS (lmp) not on PATH" >&2; exit 1; }
run="$out/runs/reference"
rm -rf "$run" && mkdir -p "$run"
cp "$ref/in.lmp" "$potential" "$run/"
(cd "$run" && python3 - <<'PY'
from ase.build import bulk
from ase.io import write
atoms = bulk("Cu", "fcc", a=3.615, cubic=True).repeat((6, 6, 6))
write("cu.data", atoms, format="lammps-data", atom_style="atomic", masses=True)
PY
)
cmp -s "$run/cu.data" "$ref/cu.data" && echo "cu.data: identical to the committed reference" \
    || echo "cu.data: differs from the committed reference (ASE version?)" >&2
(cd "$run" && OMP_NUM_THREADS=1 "$lmp" -in in.lmp -log log.lammps -screen none)
python3 - "$run/log.lammps" "$ref/in.lmp" > "$out/values.json" <<'PY'
import json, re, sys
import numpy as np
log, script = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lines = log.splitlines()
start = next(i for i, l in enumerate(lines) if l.split()[:1] == ["Step"])
header = lines[start].split()
rows = []
for l in lines[start + 1:]:
    if l.startswith("Loop time"):
        break
    rows.append([float(w) for w in l.split()])
data = {h: np.array([r[i] for r in rows]) for i, h in enumerate(header)}
natoms = int(re.search(r"^\s*(\d+) atoms", log, re.M).group(1))
late = data["Time"] >= 20.0  # the last 30 ps of 50
a = (4 * data["Volume"][late] / natoms) ** (1 / 3)
print(f"natoms {natoms}; last 30 ps: T = {data['Temp'][late].mean():.2f} K, P = {data['Press'][late].mean():.1f} bar, "
      f"a = {a.mean():.5f} A", file=sys.stderr)
json.dump({
    "units": re.search(r"^units\s+(\S+)", script, re.M).group(1),
    "elements": ["Cu"] if re.search(r"^pair_coeff\s+1 1 Cu_u3.eam\s*$", script, re.M) else [],
    "reference_run_T_K": round(float(data["Temp"][late].mean()), 2),
    "reference_run_a_angstrom": round(float(a.mean()), 5),
}, sys.stdout, indent=2)
print()
PY
cat "$out/values.json"
