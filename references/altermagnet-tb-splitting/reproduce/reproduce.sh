#!/usr/bin/env bash
# Reference values of altermagnet-tb-splitting from the closed-form eigenvalues of the model (no simulation code;
# well under a second).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./altermagnet-tb-reproduce)
#   OUTDIR/values.json   the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-altermagnet-tb-reproduce}" && cd "${1:-altermagnet-tb-reproduce}" && pwd)
python3 "$here/analytic.py" "$out/values.json"
