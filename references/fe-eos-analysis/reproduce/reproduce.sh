#!/usr/bin/env bash
# Re-run the 66 pw.x calculations staged for fe-eos-analysis: E(V) of ferromagnetic bcc, non-magnetic bcc and
# non-magnetic fcc iron, in PBE and in LDA, one atom per cell, 11 volumes each (settings in eos_runs.py).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fe-eos-reproduce)
#   OUTDIR/runs/fe_<xc>_<phase>_<nn>/   pw.in and pw.out of each run
#   OUTDIR/workspace/                    the outputs staged under tasks/fe-bcc-magnetism/fe-eos-analysis/workspace/
#   OUTDIR/values.json                   the reference values (Birch-Murnaghan fits, moments, energy differences)
# QE 6.7 pw.x, one MPI process, one run at a time: about 25 core-minutes here (reproduce/cost.yaml).
# CMB_QE_PSEUDO_DIR overrides where the two Debian pseudopotentials are found.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-fe-eos-reproduce}" && cd "${1:-fe-eos-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo="${CMB_QE_PSEUDO_DIR:-/usr/share/espresso/pseudo}"
for name in Fe.pbe-nd-rrkjus.UPF Fe.pz-nd-rrkjus.UPF; do
    [[ -f "$pseudo/$name" ]] || { echo "reproduce.sh: $pseudo/$name missing (install quantum-espresso-data)" >&2; exit 1; }
done
python3 "$here/eos_runs.py" "$pseudo" "$out"
