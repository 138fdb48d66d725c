#!/usr/bin/env bash
# Re-run the DFT+U scan of AFM-II NiO whose outputs are staged in the nio-u-analysis workspace: U = 0, 2, 4, 6, 8 eV,
# each at six cubic lattice constants, the mislabelled U = 7 eV run, and a k-mesh cross-check (nio_runs.py).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./nio-u-reproduce)
#   OUTDIR/runs/<name>/    one directory per run: pw.in, pw.out and the XML data file
#   OUTDIR/workspace/      nio_U*_a*.out, the files committed under tasks/nio-hubbard-u/nio-u-analysis/workspace/
#   OUTDIR/values.json     per series the applied U, gap and Ni moment at a = 4.17 A and the fitted a0; d(gap)/dU
# QE 6.7 pw.x, one MPI process, one run at a time; about 20 core-minutes here (reproduce/cost.yaml).
# CMB_QE_PSEUDO_DIR overrides where pseudopotentials are found.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-nio-u-reproduce}" && cd "${1:-nio-u-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo="$out/pseudo"
mkdir -p "$pseudo"
for name in Ni.pbe-nd-rrkjus.UPF O.pbe-rrkjus.UPF; do
    found=""
    for d in ${CMB_QE_PSEUDO_DIR:-} /usr/share/espresso/pseudo; do
        if [[ -f "$d/$name" ]]; then cp "$d/$name" "$pseudo/"; found=1; break; fi
    done
    [[ -n "$found" ]] || { echo "reproduce.sh: $name not found (install quantum-espresso-data)" >&2; exit 1; }
done
python3 "$here/nio_runs.py" "$pseudo" "$out"
