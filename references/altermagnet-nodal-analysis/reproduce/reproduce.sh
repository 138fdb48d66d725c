#!/usr/bin/env bash
# Reference values of altermagnet-nodal-analysis from the closed-form eigenvalues of the model on the prompt's
# 48 x 48 grid (numpy + h5py, under a second; no simulation code, nothing staged).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./altermagnet-nodal-reproduce)
#   OUTDIR/bands.h5      the bands in closed form, spin down first (read back as an analyst would)
#   OUTDIR/values.json   the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-altermagnet-nodal-reproduce}" && cd "${1:-altermagnet-nodal-reproduce}" && pwd)
python3 "$here/make_bands.py" "$out"
