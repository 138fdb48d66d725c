#!/usr/bin/env bash
# Reference values of si-dfpt-elastic-constants from the force constants of the precomputed step dfpt-dispersion.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-dfpt-elastic-constants-reproduce)
#   OUTDIR/values.json        the reference values, keyed like reference.yaml (values.py)
#   OUTDIR/alternatives.json  the valid routes and the traps, one full answer each (alternatives.py)
#
# The force constants are the si.fc of si-dfpt-phonons (a byte-identical copy is staged in this task's
# workspace); their run (pw.x, ph.x, q2r.x) and its measured cost are that task's reproduce/ (reproduce.sh,
# cost.yaml). By default the analysis reads the staged copy; with CMB_RERUN_DFPT=1 it first regenerates si.fc
# with that task's reproduce.sh into OUTDIR and reads OUTDIR/workspace/si.fc. The analysis takes seconds.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-si-dfpt-elastic-constants-reproduce}" && cd "${1:-si-dfpt-elastic-constants-reproduce}" && pwd)
fc="$here/../../../tasks/si-first-principles/si-dfpt-elastic-constants/workspace/si.fc"
if [[ "${CMB_RERUN_DFPT:-0}" == 1 ]]; then
    bash "$here/../../si-dfpt-phonons/reproduce/reproduce.sh" "$out" > "$out/dfpt.log"
    fc="$out/workspace/si.fc"
fi
export OMP_NUM_THREADS=1
python3 "$here/values.py" "$fc" "$out/values.json"
python3 "$here/alternatives.py" "$fc" > "$out/alternatives.json"
