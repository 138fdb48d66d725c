#!/usr/bin/env bash
# Re-runs the precomputed anisotropy-energy step of fept-anisotropy: four self-consistent spin-orbit pw.x runs of
# L1_0 FePt, magnetisation along [001] and [100], unshifted 8x8x6 and 12x12x9 meshes (decks.py, run.sh), then the
# analysis of their outputs (values.py) and the valid routes and errors of the fairness record (alternatives.py).
# QE 6.7 pw.x, one process, OMP_NUM_THREADS=1, one run at a time: the core-minutes of reproduce/cost.yaml.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fept-anisotropy-energy-reproduce)
#   OUTDIR/workspace/           fept_k{08,12}_t{00,90}.in, .out (and /usr/bin/time records): the staged files
#   OUTDIR/values.json          the reference values
#   OUTDIR/alternatives.json    the routes of fairness.yaml
# CMB_QE_PSEUDO_DIR overrides where the two Debian pseudopotentials are found. With CMB_REPRODUCE_STAGED=1 the
# analysis alone runs on the staged workspace (seconds).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-fept-anisotropy-energy-reproduce}" && cd "${1:-fept-anisotropy-energy-reproduce}" && pwd)
if [[ "${CMB_REPRODUCE_STAGED:-0}" == 1 ]]; then
    ws="$here/../../../tasks/fept-anisotropy/fept-anisotropy-energy-analysis/workspace"
else
    "$here/run.sh" "$out/workspace"
    ws="$out/workspace"
fi
python3 "$here/values.py" "$ws" "$out/values.json"
(cd "$here" && python3 alternatives.py "$ws") > "$out/alternatives.json"
