#!/usr/bin/env bash
# Reference values of sige-tersoff-phonons: Tersoff (1989) force constants by central differences in 512-atom
# supercells (LAMMPS) and a direct lattice sum for the dynamical matrix, without phonopy; also the traps of the
# grader (the other Tersoff parameter sets of the Debian files). About a minute.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json and OUTDIR/alternatives.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-sige-tersoff-phonons-reproduce}"
mkdir -p "$out"
python3 "$here/reference.py" "$out"
