#!/usr/bin/env bash
# The precomputed step nemd-conductance of si-ge-interface-phonons, shared with sige-nemd-conductance: re-runs the
# NEMD simulation with that task's reproduce.sh (LAMMPS 29 Sep 2021, Tersoff 1989, 640 atoms, 1.6 ns of
# production; about 25 minutes on one core) and derives this task's reference values from the run's outputs.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/nemd/ (the run and its staged files), OUTDIR/values.json and
#                                OUTDIR/alternatives.json (the valid routes and the traps of the fairness record)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-nemd-superlattice-conductivity-reproduce}" && cd "${1:-sige-nemd-superlattice-conductivity-reproduce}" && pwd)
"$here/../../sige-nemd-conductance/reproduce/reproduce.sh" "$out/nemd"
python3 "$here/alternatives.py" "$out/nemd/workspace" "$out" > "$out/alternatives.json"
