#!/usr/bin/env bash
# Reference values of ni-island-model: LAMMPS (29 Sep 2021, one core) through solution/ni_island.py on the staged
# structures and potential, by a route other than the oracle's (FIRE, a relaxed 4x4x4 bulk cell), with the
# alternatives and traps of the grader (about 30 s).
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json and OUTDIR/alternatives.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-ni-island-model-reproduce}"
mkdir -p "$out"
OMP_NUM_THREADS=1 python3 "$here/alternatives.py" "$out"
