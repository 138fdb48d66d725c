#!/usr/bin/env bash
# Regenerate the band file staged for altermagnet-nodal-analysis from the model (numpy + h5py, under a second)
# and the reference values from it.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./altermagnet-nodal-reproduce)
#   OUTDIR/workspace/bands.h5   the file committed under tasks/model-hamiltonians/altermagnet-nodal-analysis/workspace/
#   OUTDIR/values.json          the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-altermagnet-nodal-reproduce}" && cd "${1:-altermagnet-nodal-reproduce}" && pwd)
python3 "$here/make_bands.py" "$out"
