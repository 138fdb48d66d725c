#!/usr/bin/env bash
# Rebuild the staged POSCAR of crn-monte-carlo-deck (the latest geometry of the pw.x relaxation staged for
# crn-relaxed-structure, written by crn-wannier-tb2j-inputs' make_poscar.py) and the hidden reference values:
# the cell lengths, the Cr moment of the prompt, and the per-Cr exchange sums VAMPIRE must see, counted from the
# staged cell (exchange_sums.py). Nothing is simulated here: VAMPIRE does not run in this project's sandbox and the
# exchange constants are model values (QC.md). Cost: under a second.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-monte-carlo-reproduce)
#   OUTDIR/workspace/POSCAR    the staged cell
#   OUTDIR/values.json         the reference values
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-crn-monte-carlo-reproduce}" && cd "${1:-crn-monte-carlo-reproduce}" && pwd)
mkdir -p "$out/workspace"
python3 "$root/references/crn-wannier-tb2j-inputs/reproduce/make_poscar.py" \
    "$root/tasks/crn-magnons/crn-relaxed-structure/workspace/relax.out" > "$out/workspace/POSCAR"
cmp -s "$out/workspace/POSCAR" "$root/tasks/crn-magnons/crn-monte-carlo-deck/workspace/POSCAR" \
    || echo "reproduce.sh: POSCAR differs from the staged one" >&2
python3 "$here/exchange_sums.py" "$out/workspace/POSCAR" > "$out/values.json"
cat "$out/values.json"
