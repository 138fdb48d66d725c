#!/usr/bin/env bash
# Convergence study behind the thresholds of graders/si-pw-scf-inputs.yaml, plus a run of the reference input.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-pw-scf-reproduce)
# Diamond Si at a = 5.431 A (celldm(1) = 10.2631 bohr) with the staged Si.pbe-rrkj.UPF, QE 6.7 pw.x, one MPI
# process. One directory per run under OUTDIR/runs/. Prints, per atom, the total-energy error of each cutoff
# (10x10x10 mesh) against ecutwfc = 80 Ry, and of each k mesh (30 Ry), unshifted and shifted, against 20x20x20,
# and the smallest settings within the target, 1 meV/atom. Each run takes one to a few seconds.
# Writes OUTDIR/values.json with the reproduced reference values: ecutwfc_min_ry and kmesh_min (the smallest
# cutoff and unshifted mesh from which on every tested setting is within 1 meV/atom), and calculation,
# lattice_constant_angstrom and elements as pw.x reads them from the reference input set.
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

# report LABEL ENERGY REFERENCE [TABLE VALUE]: error per atom (2 atoms) in meV, and whether it is within
# 1 meV/atom; with TABLE and VALUE, also appends "VALUE error" to OUTDIR/TABLE.
RY_MEV=13605.693122994
report() {
    if [[ $# -ge 5 ]]; then
        awk -v v="$5" -v e="$2" -v r="$3" -v f="$RY_MEV" 'BEGIN { d = (e - r) / 2 * f; if (d < 0) d = -d; print v, d }' \
            >> "$out/$4"
    fi
    awk -v l="$1" -v e="$2" -v r="$3" -v f="$RY_MEV" 'BEGIN {
        d = (e - r) / 2 * f; if (d < 0) d = -d
        printf "  %-22s E = %.8f Ry   |dE| = %7.3f meV/atom  %s\n", l, e, d, (d < 1 ? "ok" : "NOT converged")
    }'
}

echo "Plane-wave cutoff (10x10x10 unshifted), reference ecutwfc = 80 Ry:"
eref=$(run ecut80 80 10 0)
rm -f "$out/ecut.dat" "$out/kmesh.dat"
for ec in 16 18 20 22 24 25 26 27 28 30 35 40 50 60; do
    report "ecutwfc = $ec Ry" "$(run "ecut$ec" "$ec" 10 0)" "$eref" ecut.dat "$ec"
done

echo "k mesh (ecutwfc = 30 Ry), reference 20x20x20 unshifted:"
kref=$(run k20 30 20 0)
for nk in 4 5 6 7 8 9 10 11 12 14 16; do
    report "${nk}x${nk}x${nk} unshifted" "$(run "k${nk}" 30 "$nk" 0)" "$kref" kmesh.dat "$nk"
done
for nk in 3 4 5 6 8; do report "${nk}x${nk}x${nk} shifted" "$(run "k${nk}s" 30 "$nk" 1)" "$kref"; done

echo "Reference input (references/si-pw-scf-inputs/pw.in):"
mkdir -p "$out/runs/reference/pseudo"
cp "$task_ws/pseudo/Si.pbe-rrkj.UPF" "$out/runs/reference/pseudo/"
cp "$here/../pw.in" "$out/runs/reference/pw.in"
(cd "$out/runs/reference" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
grep -E '^!|lattice parameter|unit-cell volume|JOB DONE' "$out/runs/reference/pw.out"

python3 - "$out" <<'PY'
import json, re, sys
from pathlib import Path

out = Path(sys.argv[1])


def smallest_converged(table: str) -> float:
    """The smallest tested value from which on every larger one is within 1 meV/atom."""
    rows = sorted((float(v), float(d)) for v, d in (line.split() for line in (out / table).read_text().splitlines()))
    ok = [v for i, (v, _) in enumerate(rows) if all(d < 1.0 for _, d in rows[i:])]
    return ok[0]


text = (out / "runs/reference/pw.out").read_text()
alat = float(re.search(r"lattice parameter \(alat\)\s*=\s*([\d.]+)", text).group(1))
nk = int(smallest_converged("kmesh.dat"))
values = {
    "calculation": "scf" if "Self-consistent Calculation" in text and "JOB DONE" in text else "?",
    "lattice_constant_angstrom": round(alat * 0.529177210903, 4),
    "elements": sorted(set(re.findall(r"^\s+(\w+)\s+[\d.]+\s+[\d.]+\s+\w+\(\s*1\.00\)", text, re.M))),
    "ecutwfc_min_ry": smallest_converged("ecut.dat"),
    "kmesh_min": [nk, nk, nk],
}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values))
PY
