#!/usr/bin/env bash
# Reference values of crn-neel-estimates (Python with numpy; about a minute): mean-field temperatures of three
# collinear orders and the RPA (Tyablikov) Neel temperature of the model exchange constants in the staged cell.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-neel-estimates-reproduce)
#   OUTDIR/values.json              the four graded temperatures (plus the eigenvalues of J(0) and the grid values)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-crn-neel-estimates-reproduce}" && cd "${1:-crn-neel-estimates-reproduce}" && pwd)
poscar="$here/../../../tasks/crn-magnons/crn-neel-estimates/workspace/POSCAR"
python3 "$here/reference_neel.py" "$poscar" > "$out/values.json"
cat "$out/values.json"
