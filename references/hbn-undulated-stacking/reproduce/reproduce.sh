#!/usr/bin/env bash
# Reference values of hbn-undulated-stacking: the staged table of the flat bilayer's vacuum-level step, counted
# from the precomputed sliding path staged for hbn-sliding-potential-step (its values.py), and the ripple model on
# that table (values.py here: numpy, about a second).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-undulated-stacking-reproduce)
#   OUTDIR/workspace/sliding_step.csv   the staged table (seven stackings, delta_V to 0.001 meV)
#   OUTDIR/values.json                  the reference values, keyed like reference.yaml
#   OUTDIR/alternatives.json            other routes and the traps, for the fairness record (alternatives.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-hbn-undulated-stacking-reproduce}" && cd "${1:-hbn-undulated-stacking-reproduce}" && pwd)
python3 "$here/values.py" "$out"
python3 "$here/alternatives.py" "$out/workspace/sliding_step.csv" > "$out/alternatives.json"
