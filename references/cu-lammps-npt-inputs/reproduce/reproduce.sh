#!/usr/bin/env bash
# Re-create the reference input set of cu-lammps-npt-inputs (in.lmp + cu.data beside reference.yaml) and run it.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-lammps-npt-reproduce)
#   OUTDIR/runs/npt1100/     npt1100.in: NPT at 1100 K and 0 bar of the 864-atom crystal started at 3.615 A (seed
#                            4817, 2 fs, Tdamp 0.2 ps, Pdamp 2 ps; 20 ps equilibration, 100 ps production), whose
#                            production mean lattice constant is the zero-pressure lattice constant at 1100 K
#   OUTDIR/runs/reference/   cu.data regenerated with ASE (6x6x6 cells at that lattice constant, rounded to
#                            1e-4 A) and compared with the committed one, the reference in.lmp, log.lammps
#   OUTDIR/workspace/Cu_u3.eam  the staged potential, copied from LAMMPS's potentials folder (Debian lammps-data)
#   OUTDIR/values.json       keyed like reference.yaml: units, elements, natoms, box_1100K_angstrom, and the
#                            mean temperature, pressure and lattice constant of the reference run's last 30 ps
# Pinned: LAMMPS 29 Sep 2021 (Debian, serial), ASE 3.29.0 for the data file. About 1 core-minute.
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
npt="$out/runs/npt1100"
rm -rf "$npt" && mkdir -p "$npt"
cp "$here/npt1100.in" "$potential" "$npt/"
(cd "$npt" && OMP_NUM_THREADS=1 "$lmp" -in npt1100.in -log log.lammps -screen none)
a=$(python3 - "$npt/log.lammps" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
col = lines[start].split().index("Volume")
vols = []
for ln in lines[start + 1:]:
    if ln.startswith("Loop time"):
        break
    vols.append(float(ln.split()[col]))
print(f"{sum((4 * v / 864) ** (1 / 3) for v in vols) / len(vols):.4f}")
PY
)
echo "zero-pressure lattice constant at 1100 K (100 ps production): $a A" >&2
run="$out/runs/reference"
rm -rf "$run" && mkdir -p "$run"
cp "$ref/in.lmp" "$potential" "$run/"
(cd "$run" && python3 - "$a" <<'PY'
import sys
from ase.build import bulk
from ase.io import write
atoms = bulk("Cu", "fcc", a=float(sys.argv[1]), cubic=True).repeat((6, 6, 6))
write("cu.data", atoms, format="lammps-data", atom_style="atomic", masses=True)
PY
)
cmp -s "$run/cu.data" "$ref/cu.data" && echo "cu.data: identical to the committed reference" \
    || echo "cu.data: differs from the committed reference (ASE version, or the lattice constant moved)" >&2
(cd "$run" && OMP_NUM_THREADS=1 "$lmp" -in in.lmp -log log.lammps -screen none)
python3 - "$run/log.lammps" "$ref/in.lmp" "$a" > "$out/values.json" <<'PY'
import json, re, sys
import numpy as np
log, script, a = open(sys.argv[1]).read(), open(sys.argv[2]).read(), float(sys.argv[3])
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
first = data["Time"] <= 2.0
lat = (4 * data["Volume"] / natoms) ** (1 / 3)
print(f"natoms {natoms}; first 2 ps: P from {data['Press'][0]:.0f} bar, min {data['Press'][first].min():.0f} bar; "
      f"last 30 ps: T = {data['Temp'][late].mean():.2f} K, P = {data['Press'][late].mean():.1f} bar, "
      f"a = {lat[late].mean():.5f} A", file=sys.stderr)
L = round(6 * a, 4)
json.dump({
    "units": re.search(r"^units\s+(\S+)", script, re.M).group(1),
    "elements": ["Cu"] if re.search(r"^pair_coeff\s+1 1 Cu_u3.eam\s*$", script, re.M) else [],
    "natoms": natoms,
    "box_1100K_angstrom": [0.0, L, 0.0, L, 0.0, L],
    "reference_run_T_K": round(float(data["Temp"][late].mean()), 2),
    "reference_run_P_bar": round(float(data["Press"][late].mean()), 0),
    "reference_run_a_angstrom": round(float(lat[late].mean()), 5),
}, sys.stdout, indent=2)
print()
PY
cat "$out/values.json"
