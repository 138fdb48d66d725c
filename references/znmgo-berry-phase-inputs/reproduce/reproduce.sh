#!/usr/bin/env bash
# Rewrite the reference input sets of znmgo-berry-phase-inputs (wz.scf.in, wz.bp.in, h.scf.in, h.bp.in) and
# values.json with the public values. Nothing is run: the inputs need a Zn pseudopotential the Debian set lacks.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./berry-decks)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-berry-decks}" && cd "${1:-berry-decks}" && pwd)
python3 "$here/make_decks.py" "$out"
