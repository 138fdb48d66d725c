#!/usr/bin/env bash
# Runs the reference input set of si-sw-md-inputs (references/si-sw-md-inputs/in.lmp) with LAMMPS (Debian build
# of 29 Sep 2021) and the staged Si.sw, to show that it runs and holds the target temperature: 1728 atoms,
# 50000 steps of 1 fs at 500 K (about a minute and a half on one core).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-md-inputs-reproduce)
#   OUTDIR/runs/reference/    in.lmp, Si.sw, log.lammps
#   OUTDIR/values.json        the settings the run used (read back from its log) and reference_run_T_K,
#                             the mean temperature over the last 30 ps
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
workspace="$here/../../../tasks/si-thermal-transport/si-sw-md-inputs/workspace"
out=$(mkdir -p "${1:-si-sw-md-inputs-reproduce}" && cd "${1:-si-sw-md-inputs-reproduce}" && pwd)
run="$out/runs/reference"
rm -rf "$run" && mkdir -p "$run"
cp "$here/../in.lmp" "$workspace/Si.sw" "$run/"
command -v lmp >/dev/null || { echo "reproduce.sh: lmp not on PATH" >&2; exit 1; }
(cd "$run" && OMP_NUM_THREADS=1 lmp -in in.lmp -log log.lammps -screen none)
python3 - "$run/log.lammps" "$out/values.json" <<'PY'
import json
import sys

rows = []
header = None
for line in open(sys.argv[1]):
    words = line.split()
    if words[:2] == ["Step", "Temp"]:
        header = words
        continue
    if header and len(words) == len(header):
        try:
            rows.append(dict(zip(header, map(float, words))))
        except ValueError:
            header = None
    elif header and words[:2] == ["Loop", "time"]:
        header = None
tail = [r for r in rows if r["Step"] > 20000]
mean = {k: sum(r[k] for r in tail) / len(tail) for k in ("Temp", "Press", "TotEng")}
print(f"last 30 ps ({len(tail)} samples): <T> = {mean['Temp']:.2f} K, <P> = {mean['Press']:.0f} bar, "
      f"<E> = {mean['TotEng']:.3f} eV")
# the settings the run actually used, read back from the commands LAMMPS echoed into its log
echo = {}
for line in open(sys.argv[1]):
    words = line.split("#")[0].split()
    if words and words[0] in ("units", "lattice", "timestep", "pair_coeff", "pair_style") and words[0] not in echo:
        echo[words[0]] = words[1:]
values = {
    "units": echo["units"][0],
    "elements": echo["pair_coeff"][3:],
    "pair_style": echo["pair_style"][0],
    "timestep_ps": float(echo["timestep"][0]),
    "lattice_constant_angstrom": float(echo["lattice"][1]),
    "reference_run_T_K": round(mean["Temp"], 2),
}
print(values)
json.dump(values, open(sys.argv[2], "w"), indent=2)
PY
