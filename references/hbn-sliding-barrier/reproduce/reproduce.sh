#!/usr/bin/env bash
# hbn-sliding-barrier analyses the same precomputed sliding path as hbn-sliding-potential-step: this runs that
# task's reproduce.sh (the relaxations along the path, about 2 core-hours: its cost.yaml) into OUTDIR and keeps
# the relaxation files this task stages. values.json holds the reference values of both tasks.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-sliding-barrier-reproduce)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-hbn-sliding-barrier-reproduce}" && cd "${1:-hbn-sliding-barrier-reproduce}" && pwd)
bash "$here/../../hbn-sliding-potential-step/reproduce/reproduce.sh" "$out"
rm -f "$out"/workspace/path/*.avg.dat
