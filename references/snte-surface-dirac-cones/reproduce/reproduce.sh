#!/usr/bin/env bash
# Reference values of snte-surface-dirac-cones: the oracle's model run with 30 planes (the task's slab) and, as a
# cross-check of the slab thickness, with 36 planes (numpy/scipy, seconds; no simulation code).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./snte-cones-reproduce)
#   OUTDIR/values.json        the reference values, keyed like reference.yaml (30 planes)
#   OUTDIR/values_36.json     the same with 36 planes
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-snte-cones-reproduce}" && cd "${1:-snte-cones-reproduce}" && pwd)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
python3 "$here/../solution/cones.py" "$out/values.json" --layers 30
python3 "$here/../solution/cones.py" "$out/values_36.json" --layers 36
