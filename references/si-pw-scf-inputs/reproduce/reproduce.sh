#!/usr/bin/env bash
# Convergence study behind the thresholds of graders/si-pw-scf-inputs.yaml, plus a run of the reference input.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-pw-scf-reproduce)
# Diamond Si at a = 5.431 A (celldm(1) = 10.2631 bohr) with the staged Si.pbe-rrkj.UPF, QE 6.7 pw.x, one MPI
# process. One directory per run under OUTDIR/runs/. Prints, per atom, the total-energy error of each cutoff
# (8x8x8 mesh) against ecutwfc = 60 Ry, and of each k mesh (30 Ry), unshifted and shifted, against 12x12x12,
# and the smallest settings within 1 mRy/atom. Each run takes about a second.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
task_ws="$here/../../../tasks/si-first-principles/si-pw-scf-inputs/workspace"
out=$(mkdir -p "${1:-si-pw-scf-reproduce}" && cd "${1:-si-pw-scf-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }

# run NAME ECUTWFC NK SHIFT: one SCF in its own directory; prints the total energy in Ry.
run() {
    local dir="$out/runs/$1"
    rm -rf "$dir" && mkdir -p "$dir/pseudo"
    cp "$task_ws/pseudo/Si.pbe-rrkj.UPF" "$dir/pseudo/"
    cat > "$dir/pw.in" <<PWIN
&control
  calculation = 'scf', prefix = 'si', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 2, celldm(1) = 10.2631, nat = 2, ntyp = 1, ecutwfc = $2
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
$3 $3 $3 $4 $4 $4
PWIN
    (cd "$dir" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    awk '/^!/ {e = $5} END {print e}' "$dir/pw.out"
}

# report LABEL ENERGY REFERENCE: error per atom (2 atoms) in mRy, and whether it is within 1 mRy/atom.
report() {
    awk -v l="$1" -v e="$2" -v r="$3" 'BEGIN {
        d = (e - r) / 2 * 1000; if (d < 0) d = -d
        printf "  %-22s E = %.8f Ry   |dE| = %7.3f mRy/atom  %s\n", l, e, d, (d < 1 ? "ok" : "NOT converged")
    }'
}

echo "Plane-wave cutoff (8x8x8 unshifted), reference ecutwfc = 60 Ry:"
eref=$(run ecut60 60 8 0)
for ec in 12 14 16 18 20 24 30 40; do report "ecutwfc = $ec Ry" "$(run "ecut$ec" "$ec" 8 0)" "$eref"; done

echo "k mesh (ecutwfc = 30 Ry), reference 12x12x12 unshifted:"
kref=$(run k12 30 12 0)
for nk in 4 5 6 8 10; do report "${nk}x${nk}x${nk} unshifted" "$(run "k${nk}" 30 "$nk" 0)" "$kref"; done
for nk in 2 3 4 6; do report "${nk}x${nk}x${nk} shifted" "$(run "k${nk}s" 30 "$nk" 1)" "$kref"; done

echo "Reference input (references/si-pw-scf-inputs/pw.in):"
mkdir -p "$out/runs/reference/pseudo"
cp "$task_ws/pseudo/Si.pbe-rrkj.UPF" "$out/runs/reference/pseudo/"
cp "$here/../pw.in" "$out/runs/reference/pw.in"
(cd "$out/runs/reference" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
grep -E '^!|lattice parameter|unit-cell volume|JOB DONE' "$out/runs/reference/pw.out"
