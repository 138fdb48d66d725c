#!/usr/bin/env bash
# Reference values of fe-moment: ferromagnetic and non-magnetic bcc Fe with the settings the prompt fixes
# (QE 6.7 pw.x, one MPI process per run, two runs at a time; about a minute of CPU, most of it the 24x24x24
# cross-check).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fe-moment-reproduce)
#   OUTDIR/runs/{fm,nm,fm_k24,nm_k24}/   pw.in and pw.out of each run
#   OUTDIR/values.json                    moment_muB_per_atom, dE_FM_NM_eV_per_atom
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo="$here/../../../tasks/fe-bcc-magnetism/fe-moment/workspace/pseudo/Fe.pbe-nd-rrkjus.UPF"
out=$(mkdir -p "${1:-fe-moment-reproduce}" && cd "${1:-fe-moment-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
python3 "$here/fe_moment.py" "$pseudo" "$out"
