#!/usr/bin/env bash
# hbn-sliding-ionization-energy analyses the same precomputed sliding path as hbn-sliding-potential-step: this runs
# that task's reproduce.sh (the seven relaxations with pp.x and average.x, about 77 core-minutes: its cost.yaml)
# into OUTDIR, whose workspace/path holds the files this task stages, then this task's values.py on the path.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-sliding-ionization-energy-reproduce)
#   OUTDIR/values.json        the reference values of this task (values.py; the path's own are in path.json)
#   OUTDIR/alternatives.json  the alternatives and traps of its fairness record
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-hbn-sliding-ionization-energy-reproduce}" && cd "${1:-hbn-sliding-ionization-energy-reproduce}" && pwd)
bash "$here/../../hbn-sliding-potential-step/reproduce/reproduce.sh" "$out"
python3 "$here/values.py" "$out/workspace/path" "$out"
