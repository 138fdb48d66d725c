#!/usr/bin/env bash
# Regenerate the energy-polarization paths staged for landau-transition-fit from the Landau-Devonshire model
# (data made by a model script; numpy, a few seconds) and the reference values (the generating coefficients).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./landau-reproduce)
#   OUTDIR/workspace/path_ZnO.csv, path_Zn3MgO4.csv   the files committed under the task's workspace/
#   OUTDIR/values.json                                the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-landau-reproduce}" && cd "${1:-landau-reproduce}" && pwd)
python3 "$here/make_data.py" "$out"
