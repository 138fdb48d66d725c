#!/usr/bin/env bash
# Re-run the pw.x variable-cell relaxation of AFM-[110]2 CrN whose output is staged for crn-relaxed-structure
# (the precomputed `dft-ground-state` step of the crn-magnons study).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-relax-reproduce)
#   OUTDIR/relax/relax.in, relax.out   the run (relax.in is the committed reproduce/relax.in with nstep = 7)
#   OUTDIR/workspace/relax.out          the file to stage under tasks/crn-magnons/crn-relaxed-structure/workspace/
#   OUTDIR/values.json                  the reference values at the sixth completed SCF cycle
# Pinned settings (relax.in): QE 6.7, PBE + U_eff = 3 eV on Cr 3d (lda_plus_u, QE's simplified Dudarev form with
# atomic projectors), PAW Cr.pbe-spn-kjpaw_psl.1.0.0 and N.pbe-n-kjpaw_psl.1.0.0, 45/360 Ry, Marzari-Vanderbilt
# 0.01 Ry, 4x8x6 mesh, BFGS on ions and cell (cell_dofree 'all'), started from the ideal rock-salt cell at
# a0 = 4.16 A; one process (OMP_NUM_THREADS=1), under nice. The staged run was stopped by its time limit during
# its seventh SCF cycle; nstep = 7 ends this one after the same six cycles and the seventh, and the reference
# values are taken at cycle 6 (reference_values.py relax.out 6) with the geometry written after it.
# Measured cost of the six cycles: reproduce/cost.yaml. CMB_QE_PSEUDO_DIR overrides the pseudopotential folder.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-crn-relax-reproduce}" && cd "${1:-crn-relax-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo="${CMB_QE_PSEUDO_DIR:-/usr/share/espresso/pseudo}"
mkdir -p "$out/relax" "$out/workspace"
sed -e "s|pseudo_dir = .*|pseudo_dir = '$pseudo'|" -e "s|^  tstress = .true.|  tstress = .true.\n  nstep = 7|" \
    "$here/relax.in" > "$out/relax/relax.in"
(cd "$out/relax" && OMP_NUM_THREADS=1 /usr/bin/time -v nice -n 10 pw.x -in relax.in > relax.out 2> time.log)
cp "$out/relax/relax.out" "$out/workspace/relax.out"
python3 "$here/reference_values.py" "$out/relax/relax.out" 6 > "$out/values.json"
cat "$out/values.json"
