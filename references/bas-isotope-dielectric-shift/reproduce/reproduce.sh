#!/usr/bin/env bash
# Reference of bas-isotope-dielectric-shift (a light, run-and-analyze step): the staged supercell forces and ph.x
# output of the study's precomputed steps (harmonic-force-constants, dielectric-response), analysed by values.py.
# Usage: reproduce.sh OUTDIR [--sizes 5,6]      (writes OUTDIR/values.json; --sizes adds larger-cell cross-checks)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-.}
shift || true
mkdir -p "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
python3 "$here/values.py" "$root/tasks/bas-isotope-dielectric/bas-isotope-dielectric-shift/workspace" "$out/values.json" "$@"
