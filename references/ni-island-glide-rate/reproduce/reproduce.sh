#!/usr/bin/env bash
# Reference values of ni-island-glide-rate: LAMMPS (29 Sep 2021) through the study's saddle tool on the structures of
# build_island.py, by a route other than the oracle's (11-replica FIRE band; 0.0025 A Hessian displacements), plus
# the alternatives and traps of the grader (under a minute).
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json, OUTDIR/alternatives.json and OUTDIR/workspace/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-ni-island-glide-rate-reproduce}"
mkdir -p "$out"
python3 "$here/../../ni-island-eam-saddle/reproduce/study_reference.py" ni-island-glide-rate "$out"
