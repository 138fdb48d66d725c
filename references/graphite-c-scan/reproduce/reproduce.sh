#!/usr/bin/env bash
# Reference scan behind graphite-c-scan (and the graphite-binding-workflow): AB graphite with PBE-D3 and with
# plain PBE at the settings the task pins, on a fine grid of c, plus isolated graphene layers in cells of several
# heights. Writes the reference values and prints the checks behind the grader's tolerances.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-c-scan-reproduce)
#   OUTDIR/runs/<name>/    one folder per run: pw.in, pw.out
#   OUTDIR/values.json     c_eq_angstrom, E_b_meV_per_atom, pbe_E_b_at_c_eq_meV_per_atom, pbe_binds_at_c_eq
#
# Pinned settings (those of the prompt): QE 6.7 pw.x, C.pbe-rrkjus.UPF (ultrasoft PBE, Debian's
# quantum-espresso-data), ecutwfc 30 Ry, ecutrho 240 Ry, Marzari-Vanderbilt smearing 0.01 Ry, conv_thr 1e-10 Ry,
# Gamma-centred 9x9x3 mesh (bulk) and 9x9x1 (layer), a = 2.464 A, vdw_corr = 'dft-d3' (QE's defaults: zero
# damping, three-body term) or none. Bulk: c = 6.2 ... 7.8 A in steps of 0.1 A, both functionals. Layers: cells
# 6, 8, 10, 15, 20 and 30 A high, both functionals; the 20 A one is the reference. About 2 minutes of CPU.
# CMB_QE_PSEUDO_DIR overrides where the pseudopotential is looked for.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-graphite-c-scan-reproduce}" && cd "${1:-graphite-c-scan-reproduce}" && pwd)
pseudo_name=C.pbe-rrkjus.UPF
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo_dir=""
for d in ${CMB_QE_PSEUDO_DIR:-} /usr/share/espresso/pseudo "$here/../../../tasks/graphite-binding/graphite-c-scan/workspace/pseudo"; do
    if [[ -f "$d/$pseudo_name" ]]; then pseudo_dir=$d; break; fi
done
[[ -n "$pseudo_dir" ]] || { echo "reproduce.sh: $pseudo_name not found (install quantum-espresso-data)" >&2; exit 1; }
mkdir -p "$out/runs" "$out/pseudo"
cp "$pseudo_dir/$pseudo_name" "$out/pseudo/"

a=2.464
bohr=0.529177210903
# run NAME C_ANG LAYER(0/1) D3(0/1): one SCF in OUTDIR/runs/NAME
run() {
    local name=$1 c=$2 layer=$3 d3=$4 dir="$out/runs/$1"
    rm -rf "$dir" && mkdir -p "$dir"
    local celldm1 celldm3 nat kz positions vdw=""
    celldm1=$(awk -v a="$a" -v b="$bohr" 'BEGIN{printf "%.10f", a/b}')
    celldm3=$(awk -v a="$a" -v c="$c" 'BEGIN{printf "%.10f", c/a}')
    if [[ $layer == 1 ]]; then
        nat=2; kz=1
        positions=$'C 0.0 0.0 0.0\nC 0.333333333333 0.666666666667 0.0'
    else
        nat=4; kz=3
        positions=$'C 0.0 0.0 0.25\nC 0.0 0.0 0.75\nC 0.333333333333 0.666666666667 0.25\nC 0.666666666667 0.333333333333 0.75'
    fi
    [[ $d3 == 1 ]] && vdw="  vdw_corr = 'dft-d3'"
    cat > "$dir/pw.in" <<PWIN
&control
  calculation = 'scf'
  prefix = 'graphite'
  outdir = './tmp'
  pseudo_dir = '$out/pseudo'
/
&system
  ibrav = 4
  celldm(1) = $celldm1
  celldm(3) = $celldm3
  nat = $nat
  ntyp = 1
  ecutwfc = 30.0
  ecutrho = 240.0
  occupations = 'smearing'
  smearing = 'mv'
  degauss = 0.01
$vdw
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
C 12.011 $pseudo_name
ATOMIC_POSITIONS crystal
$positions
K_POINTS automatic
9 9 $kz 0 0 0
PWIN
    (cd "$dir" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    grep -q 'JOB DONE' "$dir/pw.out" || { echo "reproduce.sh: run $name did not finish" >&2; exit 1; }
    rm -rf "$dir/tmp"
}

for f in d3 pbe; do
    d3=$([[ $f == d3 ]] && echo 1 || echo 0)
    for h in 6 8 10 15 20 30; do run "layer_${f}_h$h" "$h.0" 1 "$d3"; done
    for i in $(seq 0 16); do
        c=$(awk -v i="$i" 'BEGIN{printf "%.2f", 6.2 + 0.1 * i}')
        run "bulk_${f}_c$c" "$c" 0 "$d3"
    done
done
python3 "$here/fit_reference.py" --json "$out/values.json" "$out/runs"
