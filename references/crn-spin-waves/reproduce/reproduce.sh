#!/usr/bin/env bash
# Reference values of crn-spin-waves (Python with numpy; under a second): linear spin-wave theory of the model
# exchange constants in the staged relaxed cell, by a Holstein-Primakoff / Colpa diagonalisation.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-spin-waves-reproduce)
#   OUTDIR/values.json              the eight graded quantities (plus the degeneracy spreads at X and Z)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-crn-spin-waves-reproduce}" && cd "${1:-crn-spin-waves-reproduce}" && pwd)
poscar="$here/../../../tasks/crn-magnons/crn-spin-waves/workspace/POSCAR"
python3 "$here/reference_lswt.py" "$poscar" > "$out/values.json"
cat "$out/values.json"
