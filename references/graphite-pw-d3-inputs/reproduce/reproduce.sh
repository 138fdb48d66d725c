#!/usr/bin/env bash
# Convergence study behind the thresholds of graders/graphite-pw-d3-inputs.yaml, plus a run of the reference input.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-pw-d3-reproduce)
# AB graphite at a = 2.464 A, c = 6.711 A with the staged C.pbe-rrkjus.UPF (ultrasoft PBE) and
# vdw_corr = 'dft-d3', QE 6.7 pw.x, one MPI process, Marzari-Vanderbilt smearing. One folder per run under
# OUTDIR/runs/. Prints, per atom, the total-energy error
#   - of each cutoff (ecutrho = 8 x ecutwfc; 6x6x2 mesh, degauss 0.01 Ry) against ecutwfc = 80 Ry, and of
#     ecutrho = 4 x ecutwfc (the default) at a few cutoffs,
#   - of each Gamma-centred mesh n x n x m (30/240 Ry) against 24x24x8, at degauss 0.01 and 0.02 Ry (and a
#     few meshes at 0.005 Ry), and of the smearing width at 12x12x4,
# and writes OUTDIR/values.json with the smallest cutoff, and the smallest mesh whose every denser mesh, that
# are within 1 mRy/atom, plus what pw.x reads from the reference input set (calculation, elements, lattice
# constants, whether D3 is applied). About 8 minutes of CPU (the 24x24x8 references dominate).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
task_ws="$here/../../../tasks/graphite-binding/graphite-pw-d3-inputs/workspace"
out=$(mkdir -p "${1:-graphite-pw-d3-reproduce}" && cd "${1:-graphite-pw-d3-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }

# run NAME ECUTWFC ECUTRHO NK NKZ DEGAUSS: one SCF in its own folder; prints the total energy in Ry.
run() {
    local dir="$out/runs/$1"
    rm -rf "$dir" && mkdir -p "$dir/pseudo"
    cp "$task_ws/pseudo/C.pbe-rrkjus.UPF" "$dir/pseudo/"
    cat > "$dir/pw.in" <<PWIN
&control
  calculation = 'scf', prefix = 'graphite', outdir = './tmp', pseudo_dir = './pseudo'
/
&system
  ibrav = 4, celldm(1) = 4.656285, celldm(3) = 2.723620, nat = 4, ntyp = 1,
  ecutwfc = $2, ecutrho = $3, occupations = 'smearing', smearing = 'mv', degauss = $6,
  vdw_corr = 'dft-d3'
/
&electrons
  conv_thr = 1.0d-9
/
ATOMIC_SPECIES
C 12.011 C.pbe-rrkjus.UPF
ATOMIC_POSITIONS crystal
C 0.0 0.0 0.25
C 0.0 0.0 0.75
C 0.333333333333 0.666666666667 0.25
C 0.666666666667 0.333333333333 0.75
K_POINTS automatic
$4 $4 $5 0 0 0
PWIN
    (cd "$dir" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    rm -rf "$dir/tmp" "$dir/pseudo"
    awk '/^!/ {e = $5} END {print e}' "$dir/pw.out"
}

# err ENERGY REFERENCE: |error| per atom (4 atoms) in mRy.
err() { awk -v e="$1" -v r="$2" 'BEGIN { d = (e - r) / 4 * 1000; if (d < 0) d = -d; printf "%.3f", d }'; }

results="$out/convergence.tsv"
: > "$results"
echo "Plane-wave cutoff (6x6x2, degauss 0.01 Ry), reference ecutwfc = 80 Ry, ecutrho = 640 Ry:"
eref=$(run ecut80 80 640 6 2 0.01)
for ec in 25 26 28 30 35 40 50 60; do
    d=$(err "$(run "ecut$ec" "$ec" $((8 * ec)) 6 2 0.01)" "$eref")
    printf '  ecutwfc = %2s Ry, ecutrho = 8x   |dE| = %7.3f mRy/atom\n' "$ec" "$d"
    printf 'ecut\t%s\t%s\n' "$ec" "$d" >> "$results"
done
for ec in 30 40 60; do
    d=$(err "$(run "ecut${ec}r4" "$ec" $((4 * ec)) 6 2 0.01)" "$eref")
    printf '  ecutwfc = %2s Ry, ecutrho = 4x   |dE| = %7.3f mRy/atom\n' "$ec" "$d"
done

for dg in 0.01 0.02; do
    echo "k mesh (30/240 Ry, degauss $dg Ry), reference 24x24x8:"
    kref=$(run "k24x8_$dg" 30 240 24 8 "$dg")
    for nk in 4 6 8 9 10 12 15; do
        line="  ${nk}x${nk}x{1,2,3,4}:"
        for nz in 1 2 3 4; do
            d=$(err "$(run "k${nk}x${nz}_$dg" 30 240 "$nk" "$nz" "$dg")" "$kref")
            line+=$(printf ' %7.3f' "$d")
            printf 'k%s\t%s\t%s\t%s\n' "$dg" "$nk" "$nz" "$d" >> "$results"
        done
        echo "$line mRy/atom"
    done
done

echo "k mesh (30/240 Ry, degauss 0.005 Ry), reference 24x24x8:"
kref=$(run "k24x8_0.005" 30 240 24 8 0.005)
for m in "6 2" "8 2" "8 3" "9 3" "10 3" "12 4"; do
    set -- $m
    printf '  %sx%sx%s   |dE| = %7.3f mRy/atom\n' "$1" "$1" "$2" "$(err "$(run "k${1}x${2}_0.005" 30 240 "$1" "$2" 0.005)" "$kref")"
done

echo "Smearing width at 12x12x4 (30/240 Ry), relative to Marzari-Vanderbilt 0.01 Ry:"
ms=$(run sm_mv_0.01 30 240 12 4 0.01)
for dg in 0.005 0.02 0.03 0.05; do
    printf '  mv %-5s |dE| = %7.3f mRy/atom\n' "$dg" "$(err "$(run "sm_mv_$dg" 30 240 12 4 "$dg")" "$ms")"
done

echo "Reference input (references/graphite-pw-d3-inputs/pw.in):"
mkdir -p "$out/runs/reference/pseudo"
cp "$task_ws/pseudo/C.pbe-rrkjus.UPF" "$out/runs/reference/pseudo/"
cp "$here/../pw.in" "$out/runs/reference/pw.in"
(cd "$out/runs/reference" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
grep -E '^!|DFT-D3 Dispersion|lattice parameter|unit-cell volume|JOB DONE' "$out/runs/reference/pw.out"

python3 - "$results" "$out/values.json" "$out/runs/reference/pw.out" <<'PY'
import json, re, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
ecut = [(float(r[1]), float(r[2])) for r in rows if r[0] == "ecut"]
ok = [ec for ec, d in ecut if all(d2 < 1.0 for ec2, d2 in ecut if ec2 >= ec)]
kmin = {}
for dg in ("0.01", "0.02"):
    mesh = {(int(r[1]), int(r[2])): float(r[3]) for r in rows if r[0] == f"k{dg}"}
    good = [(n, m) for (n, m) in mesh if all(d < 1.0 for (n2, m2), d in mesh.items() if n2 >= n and m2 >= m)]
    kmin[dg] = min(good, key=lambda nm: (nm[0] * nm[0] * nm[1], nm))
    print(f"smallest mesh whose every denser mesh is within 1 mRy/atom (degauss {dg}): {kmin[dg]}")
n, m = max(kmin.values())
print(f"smallest cutoff within 1 mRy/atom (and every larger one): {min(ok)} Ry")
text = open(sys.argv[3]).read()  # the reference input set as pw.x read and ran it
alat = float(re.search(r"lattice parameter \(alat\)\s*=\s*([\d.]+)", text).group(1)) * 0.529177210903
c_over_a = float(re.search(r"celldm\(3\)=\s*([\d.]+)", text).group(1))
values = {
    "calculation": "scf" if "Self-consistent Calculation" in text and "JOB DONE" in text else "?",
    "elements": sorted(set(re.findall(r"^\s+(\w+)\s+[\d.]+\s+[\d.]+\s+\w+\s*\(\s*1\.00\)", text, re.M))),
    "lattice_a_angstrom": round(alat, 4),
    "lattice_c_angstrom": round(alat * c_over_a, 4),
    "vdw_corr": "grimme-d3" if "DFT-D3 Dispersion" in text else "none",
    "ecutwfc_min_ry": min(ok),
    "kmesh_min": f"{n}x{n}x{m}",
}
print(values)
json.dump(values, open(sys.argv[2], "w"), indent=2)
PY
