#!/usr/bin/env bash
# Reference values of square-afm-spin-waves and the staged energies.csv (Python: numpy, scipy; a few seconds).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./square-afm-reproduce)
#   OUTDIR/workspace/energies.csv   the file committed under tasks/crn-magnons/square-afm-spin-waves/workspace/
#   OUTDIR/values.json              J1, J2, spin-wave velocity, zone-boundary energies, delta_S, ordered moment
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-square-afm-reproduce}" && cd "${1:-square-afm-reproduce}" && pwd)
python3 "$here/reference_lswt.py" "$out"
