#!/usr/bin/env bash
# nio-u-stiffness-magnetovolume analyses the five six-run series of the precomputed U scan of nio-hubbard-u: this
# runs nio-u-analysis's reproduce.sh (the 32 pw.x runs of that step, 19.5 core-minutes: its reproduce/cost.yaml)
# into OUTDIR, keeps the 30 outputs this task stages, and replaces values.json with this task's reference values
# (values.py) and alternatives.json with its routes and traps (alternatives.py).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./nio-u-stiffness-reproduce)
#   OUTDIR/runs/, OUTDIR/pseudo/   as nio-u-analysis/reproduce/reproduce.sh writes them
#   OUTDIR/workspace/              nio_U{0,2,4,6,8}_a{4.09 ... 4.29}.out
#   OUTDIR/values.json             the reference values of this task (keys of reference.yaml and cross-checks)
#   OUTDIR/alternatives.json       the valid routes and traps
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-nio-u-stiffness-reproduce}" && cd "${1:-nio-u-stiffness-reproduce}" && pwd)
bash "$here/../../nio-u-analysis/reproduce/reproduce.sh" "$out"
rm -f "$out"/workspace/nio_U7_*.out
python3 "$here/values.py" "$out/workspace" "$out/values.json"
python3 "$here/alternatives.py" "$out/workspace" > "$out/alternatives.json"
