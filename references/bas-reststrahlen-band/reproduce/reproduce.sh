#!/usr/bin/env bash
# Reference of bas-reststrahlen-band (a light, run-and-analyze step): the staged supercell forces and ph.x output of
# the study's precomputed steps (harmonic-force-constants, dielectric-response), analysed by values.py.
# Usage: reproduce.sh OUTDIR [--size 8] [--seeds 8]      (writes OUTDIR/values.json; a few minutes of one core)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-.}
shift || true
mkdir -p "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
python3 "$here/values.py" "$root/tasks/bas-isotope-dielectric/bas-reststrahlen-band/workspace" "$out/values.json" "$@"
