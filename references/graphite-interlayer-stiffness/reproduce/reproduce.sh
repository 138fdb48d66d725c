#!/usr/bin/env bash
# graphite-interlayer-stiffness analyses the PBE-D3 half of the precomputed binding-curve step of graphite-binding:
# this runs graphite-binding-analysis's reproduce.sh (the 40 pw.x runs of that step, 15.4 core-minutes: its
# reproduce/cost.yaml) into OUTDIR, keeps the 19 PBE-D3 bulk outputs this task stages, and replaces values.json
# with this task's reference values (values.py) and alternatives.json with its routes and traps.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-interlayer-stiffness-reproduce)
#   OUTDIR/runs/, OUTDIR/pseudo/   as graphite-binding-analysis/reproduce/reproduce.sh writes them
#   OUTDIR/workspace/              bulk_d3_01.out ... bulk_d3_19.out
#   OUTDIR/values.json             the reference values of this task (keys of reference.yaml and cross-checks)
#   OUTDIR/alternatives.json       the valid routes and traps (alternatives.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-graphite-interlayer-stiffness-reproduce}" && cd "${1:-graphite-interlayer-stiffness-reproduce}" && pwd)
bash "$here/../../graphite-binding-analysis/reproduce/reproduce.sh" "$out"
rm -f "$out"/workspace/layer_*.out "$out"/workspace/bulk_pbe_*.out
python3 "$here/values.py" "$out/workspace" "$out/values.json"
python3 "$here/alternatives.py" "$out/workspace" > "$out/alternatives.json"
