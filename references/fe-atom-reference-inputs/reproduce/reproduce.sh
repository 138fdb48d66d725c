#!/usr/bin/env bash
# The isolated-atom runs behind fe-atom-reference-inputs and the values read from the staged bulk run.
#
# Usage: reproduce.sh [OUTDIR] [RUN ...]     (default OUTDIR ./fe-atom-reproduce; runs: box6 reference)
# QE 6.7 pw.x, one process per run, one at a time (atom_runs.py). The reference run in the 12 x 12.5 x 13 A box
# takes 20-40 CPU minutes at the bulk runs' 45/360 Ry; the traps tm2, bulk_smearing and cubic12 may be named too.
# Writes OUTDIR/values.json: ecutwfc_ry and ecutrho_ry as printed by the staged bulk output, e_atom_box6_ry,
# and, once the reference run has converged, e_atom_ref_ry and the cohesive energy against the bulk run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
task="$here/../../../tasks/fe-bcc-magnetism/fe-atom-reference-inputs/workspace"
out=$(mkdir -p "${1:-fe-atom-reproduce}" && cd "${1:-fe-atom-reproduce}" && pwd)
shift || true
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
python3 "$here/atom_runs.py" "$task/pseudo/Fe.pbe-nd-rrkjus.UPF" "$out" "$@"
python3 "$here/values.py" "$task/fe_pbe_bcc_fm_08.out" "$out/runs" "$out"
