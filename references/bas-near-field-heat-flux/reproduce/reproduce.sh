#!/usr/bin/env bash
# Reference of bas-near-field-heat-flux (a light, run-and-analyze step): the staged supercell forces and ph.x output
# of the study's precomputed steps (harmonic-force-constants, dielectric-response), analysed by values.py.
# Usage: reproduce.sh OUTDIR      (writes OUTDIR/values.json; a few seconds of one core)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-.}
mkdir -p "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
python3 "$here/values.py" "$root/tasks/bas-isotope-dielectric/bas-near-field-heat-flux/workspace" "$out/values.json"
