#!/usr/bin/env bash
# fe-magnetovolume-coupling analyses outputs of the precomputed equations-of-state step of fe-bcc-magnetism: 44 of
# the 66 pw.x runs of fe-eos-analysis (ferromagnetic and non-magnetic bcc, PBE and LDA), staged byte-identically.
# The runs themselves are re-made by references/fe-eos-analysis/reproduce/reproduce.sh (14.0 core-minutes, its
# cost.yaml); this script reads the staged outputs and writes the reference values (seconds).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fe-magnetovolume-coupling-reproduce)
#   OUTDIR/values.json         the reference values (values.py: Birch-Murnaghan fits, the moment's slope)
#   OUTDIR/alternatives.json   the valid routes and the traps of the fairness record (alternatives.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-fe-magnetovolume-coupling-reproduce}" && cd "${1:-fe-magnetovolume-coupling-reproduce}" && pwd)
ws="$here/../../../tasks/fe-bcc-magnetism/fe-magnetovolume-coupling/workspace"
python3 "$here/values.py" "$ws" "$out/values.json"
python3 "$here/alternatives.py" "$ws" > "$out/alternatives.json"
