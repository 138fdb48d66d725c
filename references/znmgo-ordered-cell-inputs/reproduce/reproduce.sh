#!/usr/bin/env bash
# Rewrite the reference input sets of znmgo-ordered-cell-inputs (zn3mgo4.vcrelax.in) and values.json with
# the elements. Nothing is run: the inputs need a Zn pseudopotential the Debian set lacks.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./ordered-decks)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-ordered-decks}" && cd "${1:-ordered-decks}" && pwd)
python3 "$here/make_decks.py" "$out"
