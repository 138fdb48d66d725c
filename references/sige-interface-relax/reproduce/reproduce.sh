#!/usr/bin/env bash
# Reference values of sige-interface-relax: LAMMPS with the Tersoff (1989) Si-Ge parameters, cells other than the
# oracle's (2x2 cross-section, 48 + 48 planes), plus the alternatives and traps of the grader (a minute).
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json and OUTDIR/alternatives.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-sige-interface-relax-reproduce}"
mkdir -p "$out"
python3 "$here/reference.py" "$out"
