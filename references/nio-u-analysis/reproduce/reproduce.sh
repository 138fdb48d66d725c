#!/usr/bin/env bash
# Re-run the six pw.x DFT+U calculations of AFM-II NiO whose outputs are staged in the nio-u-analysis workspace.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./nio-u-reproduce)
#   OUTDIR/runs/U*/        one directory per run: pw.in, pw.out, pseudo/ and out/ (with the XML data file)
#   OUTDIR/workspace/      nio_U*.out, the files committed under tasks/magnetism/nio-u-analysis/workspace/
#   OUTDIR/values.json     applied U, band gap and Ni moment per run, and d(gap)/dU over the runs with U > 0
# Pinned settings are listed in nio_runs.py (QE 6.7, PBE ultrasoft Ni/O, 30/240 Ry, 4x4x4, one MPI process per
# run, two runs at a time; about 15 s of CPU per run). CMB_QE_PSEUDO_DIR overrides where pseudopotentials are found.
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
    if [[ -z "$found" ]]; then
        gz=$(find /usr/share/doc/quantum-espresso -name "$name.gz" -print -quit 2>/dev/null || true)
        [[ -n "$gz" ]] || { echo "reproduce.sh: $name not found (install quantum-espresso-data)" >&2; exit 1; }
        zcat "$gz" > "$pseudo/$name"
    fi
done
python3 "$here/nio_runs.py" "$pseudo" "$out"
