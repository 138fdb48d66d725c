#!/usr/bin/env bash
# Reference values of fept-moments: the spin-orbit SCF run of L1_0 FePt with the magnetisation along c, with the
# prompt's settings on the 8x8x6 mesh (moments.py). QE 6.7 pw.x, one MPI process; about 270 s of CPU here (15 SCF iterations).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fept-moments-reproduce)
#   OUTDIR/runs/fept_mz_k8/   pw.in and pw.out
#   OUTDIR/values.json        total_moment_muB, fe_moment_muB, pt_moment_muB
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-fept-moments-reproduce}" && cd "${1:-fept-moments-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo="${CMB_QE_PSEUDO_DIR:-/usr/share/espresso/pseudo}"
python3 "$here/moments.py" "$pseudo" "$out"
