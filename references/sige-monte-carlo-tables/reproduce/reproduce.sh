#!/usr/bin/env bash
# Reference values of sige-monte-carlo-tables: mode-matching transmission tables of the staged sige_device.h5 from
# both sides at the six frequencies, spectral averages from the Caroli Xi on a 0.025 THz grid and the lead bands at
# 4096 wave vectors; the valid routes and the common errors of the fairness record. A few minutes of one core.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json and OUTDIR/alternatives.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-monte-carlo-tables-reproduce}" && cd "${1:-sige-monte-carlo-tables-reproduce}" && pwd)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
h5="$here/../../../tasks/si-ge-interface-phonons/sige-monte-carlo-tables/workspace/sige_device.h5"
python3 "$here/alternatives.py" "$h5" "$out"
