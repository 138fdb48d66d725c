#!/usr/bin/env bash
# The precomputed step of graphite-binding-analysis: converged PBE and PBE-D3 binding curves of AB graphite along
# the stacking period (40 pw.x SCF runs), staged for the agent, and the reference values computed from them.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-binding-analysis-reproduce)
#   OUTDIR/runs/<name>/    one folder per run: pw.in, pw.out, time.txt (user and wall seconds)
#   OUTDIR/workspace/      bulk_d3_NN.out, bulk_pbe_NN.out (NN = 01..19), layer_d3.out, layer_pbe.out: the files
#                          committed under tasks/graphite-binding/graphite-binding-analysis/workspace/
#   OUTDIR/values.json     the reference values (keys of reference.yaml), from fit_reference.py
#
# Pinned settings (converged, unlike the light settings of graphite-c-scan): QE 6.7 pw.x, C.pbe-rrkjus.UPF
# (ultrasoft PBE, Debian's quantum-espresso-data), ecutwfc 60 Ry, ecutrho 480 Ry, Marzari-Vanderbilt smearing
# 0.01 Ry, conv_thr 1e-10 Ry, Gamma-centred 18x18x6 mesh (bulk) and 18x18x1 (layer), one MPI process. AB graphite
# (4 atoms, ibrav = 4) at a = 2.464 A and c = 6.2 ... 8.0 A in steps of 0.1 A, with vdw_corr = 'dft-d3' (QE's
# default zero-damping D3, three-body term on) and without it (plain PBE); one graphene layer (2 atoms) in a cell
# 20 A high with each. Cost: reproduce/cost.yaml. CMB_QE_PSEUDO_DIR overrides where the pseudopotential is looked
# for. CMB_REPRODUCE_QUICK=1 runs the light settings of graphite-c-scan (30/240 Ry, 9x9x3) instead, as a smoke
# test.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-graphite-binding-analysis-reproduce}" && cd "${1:-graphite-binding-analysis-reproduce}" && pwd)
pseudo_name=C.pbe-rrkjus.UPF
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
pseudo_dir=""
for d in ${CMB_QE_PSEUDO_DIR:-} /usr/share/espresso/pseudo; do
    if [[ -f "$d/$pseudo_name" ]]; then pseudo_dir=$d; break; fi
done
[[ -n "$pseudo_dir" ]] || { echo "reproduce.sh: $pseudo_name not found (install quantum-espresso-data)" >&2; exit 1; }
mkdir -p "$out/runs" "$out/workspace" "$out/pseudo"
cp "$pseudo_dir/$pseudo_name" "$out/pseudo/"

a=2.464
bohr=0.529177210903
ecut=60.0; ecutrho=480.0; kin=18; kz_bulk=6
if [[ ${CMB_REPRODUCE_QUICK:-0} == 1 ]]; then ecut=30.0; ecutrho=240.0; kin=9; kz_bulk=3; fi
# run NAME C_ANG LAYER(0/1) D3(0/1): one SCF in OUTDIR/runs/NAME
run() {
    local name=$1 c=$2 layer=$3 d3=$4 dir="$out/runs/$1"
    mkdir -p "$dir"
    local celldm1 celldm3 nat kz positions vdw=""
    celldm1=$(awk -v a="$a" -v b="$bohr" 'BEGIN{printf "%.10f", a/b}')
    celldm3=$(awk -v a="$a" -v c="$c" 'BEGIN{printf "%.10f", c/a}')
    if [[ $layer == 1 ]]; then
        nat=2; kz=1
        positions=$'C 0.0 0.0 0.0\nC 0.333333333333 0.666666666667 0.0'
    else
        nat=4; kz=$kz_bulk
        positions=$'C 0.0 0.0 0.25\nC 0.0 0.0 0.75\nC 0.333333333333 0.666666666667 0.25\nC 0.666666666667 0.333333333333 0.75'
    fi
    [[ $d3 == 1 ]] && vdw="  vdw_corr = 'dft-d3'"
    cat > "$dir/pw.in.new" <<PWIN
&control
  calculation = 'scf'
  prefix = 'graphite'
  outdir = './tmp'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 4
  celldm(1) = $celldm1
  celldm(3) = $celldm3
  nat = $nat
  ntyp = 1
  ecutwfc = $ecut
  ecutrho = $ecutrho
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
$kin $kin $kz 0 0 0
PWIN
    # A run already finished with the same input (an interrupted reproduction resumed) is kept.
    if [[ -f "$dir/pw.out" ]] && grep -q 'JOB DONE' "$dir/pw.out" && cmp -s "$dir/pw.in.new" "$dir/pw.in"; then
        rm "$dir/pw.in.new"
    else
        rm -rf "$dir/tmp" "$dir/pseudo" && mkdir -p "$dir/pseudo" && mv "$dir/pw.in.new" "$dir/pw.in"
        cp "$out/pseudo/$pseudo_name" "$dir/pseudo/"
        (cd "$dir" && /usr/bin/time -f '%U %e' -o time.txt env OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    fi
    grep -q 'JOB DONE' "$dir/pw.out" || { echo "reproduce.sh: run $name did not finish" >&2; exit 1; }
    rm -rf "$dir/tmp" "$dir/pseudo"
    printf '%-14s c = %5s A  %s  (user, wall s: %s)\n' "$name" "$c" "$(grep '^!' "$dir/pw.out" | tr -s ' ')" \
        "$(cat "$dir/time.txt")"
}

run layer_d3 20.0 1 1
run layer_pbe 20.0 1 0
cp "$out/runs/layer_d3/pw.out" "$out/workspace/layer_d3.out"
cp "$out/runs/layer_pbe/pw.out" "$out/workspace/layer_pbe.out"
for i in $(seq 1 19); do
    n=$(printf '%02d' "$i")
    c=$(awk -v i="$i" 'BEGIN{printf "%.1f", 6.1 + 0.1 * i}')
    for f in d3 pbe; do
        run "bulk_${f}_$n" "$c" 0 $([[ $f == d3 ]] && echo 1 || echo 0)
        cp "$out/runs/bulk_${f}_$n/pw.out" "$out/workspace/bulk_${f}_$n.out"
    done
done
python3 "$here/fit_reference.py" --json "$out/values.json" "$out/workspace"
