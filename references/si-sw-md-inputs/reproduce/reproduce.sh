#!/usr/bin/env bash
# Reference of si-sw-md-inputs, with LAMMPS (Debian build of 29 Sep 2021) and the staged Si.sw:
#   1. NPT at 500 K and 0 bar (reproduce/npt.in: 1728 atoms, 20 ps equilibration, 200 ps production): the
#      zero-pressure lattice constant of SW Si at 500 K, mean of lx/6 over the production (block errors printed);
#   2. the reference input set (references/si-sw-md-inputs/in.lmp, built at that lattice constant), run as it
#      stands: it holds 500 K and its mean pressure is close to zero.
# About 5 core-minutes in all.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-md-inputs-reproduce)
#   OUTDIR/runs/npt/          npt.in, Si.sw, log.lammps
#   OUTDIR/runs/reference/    in.lmp, Si.sw, log.lammps
#   OUTDIR/values.json        the settings the reference run used (read back from its log), the lattice constant
#                             at 500 K from the NPT run, and the mean temperature and pressure of the NVT run
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
workspace="$here/../../../tasks/si-thermal-transport/si-sw-md-inputs/workspace"
out=$(mkdir -p "${1:-si-sw-md-inputs-reproduce}" && cd "${1:-si-sw-md-inputs-reproduce}" && pwd)
command -v lmp >/dev/null || { echo "reproduce.sh: lmp not on PATH" >&2; exit 1; }
npt="$out/runs/npt"
rm -rf "$npt" && mkdir -p "$npt"
cp "$here/npt.in" "$workspace/Si.sw" "$npt/"
(cd "$npt" && OMP_NUM_THREADS=1 lmp -in npt.in -log log.lammps -screen none)
run="$out/runs/reference"
rm -rf "$run" && mkdir -p "$run"
cp "$here/../in.lmp" "$workspace/Si.sw" "$run/"
(cd "$run" && OMP_NUM_THREADS=1 lmp -in in.lmp -log log.lammps -screen none)
python3 - "$run/log.lammps" "$out/values.json" "$npt/log.lammps" <<'PY'
import json
import sys

import numpy as np

# 1. the NPT run: lattice constant at 500 K from the production block (the last thermo block)
lines = open(sys.argv[3]).read().splitlines()
start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
head = lines[start].split()
prod = []
for ln in lines[start + 1:]:
    if ln.startswith("Loop time"):
        break
    prod.append([float(w) for w in ln.split()])
prod = np.array(prod)
a = prod[:, head.index("Lx")] / 6
blocks = [b.mean() for b in np.array_split(a, 10)]
print(f"NPT 500 K: {len(a)} rows, a = {a.mean():.5f} +- {np.std(blocks, ddof=1) / np.sqrt(10):.5f} A, "
      f"<T> = {prod[:, head.index('Temp')].mean():.2f} K, <P> = {prod[:, head.index('Press')].mean():.0f} bar")
a500 = round(float(a.mean()), 4)

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
tail = [r for r in rows if r["Step"] > 20000]  # the last 30 ps
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
    "lattice_scale_used": float(echo["lattice"][1]),
    "lattice_constant_500K_angstrom": a500,
    "reference_run_T_K": round(mean["Temp"], 2),
    "reference_run_P_bar": round(mean["Press"], 0),
}
print(values)
json.dump(values, open(sys.argv[2], "w"), indent=2)
PY
