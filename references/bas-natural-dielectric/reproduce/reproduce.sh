#!/usr/bin/env bash
# Reference of bas-natural-dielectric (a light, run-and-analyze step): the staged supercell forces and ph.x output of
# the study's precomputed steps (harmonic-force-constants, dielectric-response), analysed by values.py.
# Usage: reproduce.sh [OUT.json] [--peak-size N]     (default ./bas-natural-dielectric-values.json, N = 6)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-bas-natural-dielectric-values.json}
shift || true
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
python3 "$here/values.py" "$root/tasks/bas-isotope-dielectric/bas-natural-dielectric/workspace" "$out" "$@"
