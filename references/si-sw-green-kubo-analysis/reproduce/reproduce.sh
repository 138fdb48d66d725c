#!/usr/bin/env bash
# Reference of si-sw-green-kubo-analysis: the Green-Kubo MD run of SW Si at 500 K with LAMMPS (Debian build of
# 29 Sep 2021 - Update 2) on one core (reproduce/gk.in: 1728 atoms, 30 ps NVT + 10 ps NVE + 500 ps NVE
# production, heat current every 20 steps), then reproduce/values.py on its outputs.
# About 12 core-minutes.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-green-kubo-analysis-reproduce)
#   OUTDIR/run/                 gk.in, Si.sw, log.lammps, J.dat, J10.dat
#   OUTDIR/workspace/           the staged files: J.dat and log.lammps
#   OUTDIR/values.json          the reference values computed from OUTDIR/workspace (values.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/si-thermal-transport/si-sw-md-inputs/workspace/Si.sw"
out=$(mkdir -p "${1:-si-sw-green-kubo-analysis-reproduce}" && cd "${1:-si-sw-green-kubo-analysis-reproduce}" && pwd)
command -v lmp >/dev/null || { echo "reproduce.sh: lmp not on PATH" >&2; exit 1; }
run="$out/run"
rm -rf "$run" && mkdir -p "$run"
cp "$here/gk.in" "$potential" "$run/"
(cd "$run" && OMP_NUM_THREADS=1 lmp -in gk.in -log log.lammps -screen none)
mkdir -p "$out/workspace"
cp "$run/J.dat" "$run/log.lammps" "$out/workspace/"
python3 "$here/values.py" "$out/workspace" "$out/values.json" --check "$run/J10.dat"
