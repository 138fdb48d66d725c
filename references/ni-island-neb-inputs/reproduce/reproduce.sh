#!/usr/bin/env bash
# Reference of ni-island-neb-inputs: the staged end states (the heptamer on fcc and on hcp hollows, relaxed with
# Foiles' EAM, bottom two layers fixed) regenerated with LAMMPS (29 Sep 2021), and the reference deck in.neb run
# on them with 7 partitions under mpirun; its barriers are recorded (not graded). Seconds.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json, OUTDIR/workspace/ and OUTDIR/run/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-ni-island-neb-inputs-reproduce}"
mkdir -p "$out"
python3 "$here/make_states.py" "$out"
