#!/usr/bin/env bash
# fe-bcc-fcc-transition-pressure analyses outputs of the precomputed equations-of-state step of fe-bcc-magnetism:
# 44 of the 66 pw.x runs of fe-eos-analysis (ferromagnetic bcc and non-magnetic fcc, PBE and LDA), staged
# byte-identically. The runs themselves are re-made by references/fe-eos-analysis/reproduce/reproduce.sh (about
# 14 core-minutes, its cost.yaml); this script reads the staged outputs and writes the reference values.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fe-bcc-fcc-transition-pressure-reproduce)
#   OUTDIR/values.json   the reference values (values.py: Birch-Murnaghan fits, the enthalpy crossing)
#   OUTDIR/alternatives.txt   the other routes of the fairness record (alternatives.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-fe-bcc-fcc-transition-pressure-reproduce}" && cd "${1:-fe-bcc-fcc-transition-pressure-reproduce}" && pwd)
ws="$here/../../../tasks/fe-bcc-magnetism/fe-bcc-fcc-transition-pressure/workspace"
python3 "$here/values.py" "$ws" "$out"
python3 "$here/alternatives.py" "$ws" > "$out/alternatives.txt"
