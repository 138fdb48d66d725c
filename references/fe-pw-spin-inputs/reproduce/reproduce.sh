#!/usr/bin/env bash
# Convergence study behind the thresholds of graders/fe-pw-spin-inputs.yaml, plus a run of the reference input.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./fe-pw-spin-reproduce)
# QE 6.7 pw.x, ferromagnetic bcc Fe at a = 2.866 A with the staged ultrasoft Fe.pbe-nd-rrkjus.UPF, one MPI
# process per run, one run at a time. One directory per run under OUTDIR/runs/. 40 runs of 2-200 s each.
# Writes OUTDIR/values.json: ecutwfc_min_ry, ecutrho_min_ry, kmesh_min, degauss_ry, moment_muB_per_atom (and
# degauss_max_ry, context for the prescribed smearing).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo="$here/../../../tasks/fe-bcc-magnetism/fe-pw-spin-inputs/workspace/pseudo/Fe.pbe-nd-rrkjus.UPF"
out=$(mkdir -p "${1:-fe-pw-spin-reproduce}" && cd "${1:-fe-pw-spin-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
python3 "$here/convergence.py" "$pseudo" "$out"

echo "Reference input (references/fe-pw-spin-inputs/pw.in):"
ref="$out/runs/reference"
rm -rf "$ref" && mkdir -p "$ref/pseudo"
cp "$pseudo" "$ref/pseudo/"
cp "$here/../pw.in" "$ref/pw.in"
(cd "$ref" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
grep -E '^!|total magnetization|JOB DONE' "$ref/pw.out" | tail -3
