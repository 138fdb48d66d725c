#!/usr/bin/env bash
# Reference values of cu-npt-heat-capacity from the five NPT logs of the precomputed step npt-md.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-npt-heat-capacity-reproduce)
#   OUTDIR/values.json        the reference values, keyed like reference.yaml (values.py)
#   OUTDIR/alternatives.json  the spread of valid routes, the traps and the fairness answers (alternatives.py)
#
# The logs are those of cu-npt-expansion-analysis (byte-identical copies staged in this task's workspace). By
# default the analysis reads the staged copies; with CMB_RERUN_MD=1 it first re-runs the five LAMMPS simulations
# with that task's reproduce.sh (about 3 core-minutes, its cost.yaml) into OUTDIR and reads OUTDIR/workspace.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-cu-npt-heat-capacity-reproduce}" && cd "${1:-cu-npt-heat-capacity-reproduce}" && pwd)
logs="$here/../../../tasks/cu-eam/cu-npt-heat-capacity/workspace"
if [[ "${CMB_RERUN_MD:-0}" == 1 ]]; then
    bash "$here/../../cu-npt-expansion-analysis/reproduce/reproduce.sh" "$out" > "$out/md.log"
    logs="$out/workspace"
fi
python3 "$here/values.py" "$logs"/npt_{100,200,300,400,500}K.log > "$out/values.json" 2> "$out/record.txt"
python3 "$here/alternatives.py" "$logs"/npt_{100,200,300,400,500}K.log > "$out/alternatives.json"
cat "$out/record.txt" "$out/values.json"
