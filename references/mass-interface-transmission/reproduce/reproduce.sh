#!/usr/bin/env bash
# Reference values of mass-interface-transmission. The chain itself (the staged interplanar_fc.json) comes from
# the Tersoff force constants of the relaxed abrupt Si/Ge(001) interface, made by
# ../sige-agf-transmission/reproduce/make_blocks.py (LAMMPS, about a minute); the transmission and conductances
# by lead Bloch modes and the Caroli formula, with adaptive quadrature (reproduce/chain_reference.py, seconds);
# the values of the common errors of the grader by reproduce/traps.py.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/workspace/interplanar_fc.json, OUTDIR/values.json,
#                                OUTDIR/alternatives.json and OUTDIR/traps.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-mass-interface-transmission-reproduce}" && cd "${1:-mass-interface-transmission-reproduce}" && pwd)
export OMP_NUM_THREADS=1
python3 "$here/../../sige-agf-transmission/reproduce/make_blocks.py" "$out/blocks"
mkdir -p "$out/workspace"
cp "$out/blocks/interplanar_fc.json" "$out/workspace/interplanar_fc.json"
python3 "$here/chain_reference.py" "$out/workspace/interplanar_fc.json" "$out"
python3 "$here/traps.py" "$out/workspace/interplanar_fc.json" "$out"
