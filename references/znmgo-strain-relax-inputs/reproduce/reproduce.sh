#!/usr/bin/env bash
# Rewrite the reference input sets of znmgo-strain-relax-inputs (strain_p1.in, strain_m1.in) and values.json with
# the strained c values. Nothing is run: the inputs need a Zn pseudopotential the Debian set lacks.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./strain-decks)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-strain-decks}" && cd "${1:-strain-decks}" && pwd)
python3 "$here/make_decks.py" "$out"
