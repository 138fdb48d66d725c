#!/usr/bin/env bash
# Regenerate the P(T) data staged for landau-transition-fit from the Landau free energies (numpy, about a second)
# and the reference values (the generating coefficients).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./landau-reproduce)
#   OUTDIR/workspace/sample_A.csv, sample_B.csv   the files committed under the task's workspace/
#   OUTDIR/values.json                            the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-landau-reproduce}" && cd "${1:-landau-reproduce}" && pwd)
python3 "$here/make_data.py" "$out"
