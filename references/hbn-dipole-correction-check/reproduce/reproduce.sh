#!/usr/bin/env bash
# Reference values of hbn-dipole-correction-check: the relaxed AB bilayer of the sliding path (the staged
# ab.relax.out, a copy of the path's s1.00.relax.out) in three pw.x SCF runs at the task's settings, plus the 2D
# Coulomb cutoff as an alternative to the sawtooth, each followed by pp.x (plot_num 11) and average.x.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-dipole-correction-check-reproduce)
#   OUTDIR/runs/{a,b,c,2d}/   pw.in, pw.out, pp.in, avg.dat (the decks are the oracle's, solution/dipole_check.py)
#   OUTDIR/values.json        the reference values (values.py, its own reading of avg.dat)
#   OUTDIR/alternatives.json  valid alternative readings and the traps
# Two MPI processes with two k-point pools (NP to change); the runs' seconds go to OUTDIR/time.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ref=$(cd "$here/.." && pwd)
ws=$(cd "$here/../../../tasks/hbn-sliding-ferroelectricity/hbn-dipole-correction-check/workspace" && pwd)
np=${NP:-2}
out=$(mkdir -p "${1:-hbn-dipole-correction-check-reproduce}" && cd "${1:-hbn-dipole-correction-check-reproduce}" && pwd)
for exe in pw.x pp.x average.x mpirun; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
cp "$ws/ab.relax.out" "$out/"
cp -r "$ws/pseudo" "$out/"
cd "$out"
/usr/bin/time -f "%e s wall %U s user (a, b, c and 2d)" -o time.txt \
    python3 "$ref/solution/dipole_check.py" --relax ab.relax.out --pseudo pseudo --answer oracle.json --np "$np" --2d
rm -rf pseudo
python3 "$here/values.py" "$out"
