#!/usr/bin/env bash
# Re-run the 32 pw.x SCF calculations whose outputs are staged in the graphite-binding-analysis workspace, and
# compute the reference values from them.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-binding-analysis-reproduce)
#   OUTDIR/runs/<name>/    one folder per run: pw.in, pw.out, tmp/
#   OUTDIR/workspace/      bulk_d3_NN.out, bulk_pbe_NN.out (NN = 01..15), layer_d3.out, layer_pbe.out: the files
#                          committed under tasks/graphite-binding/graphite-binding-analysis/workspace/
#   OUTDIR/values.json     the reference values (keys of reference.yaml), from fit_reference.py
#
# Pinned settings: QE 6.7 pw.x, C.pbe-rrkjus.UPF (ultrasoft PBE, Debian's quantum-espresso-data), ecutwfc 40 Ry,
# ecutrho 320 Ry, Marzari-Vanderbilt smearing 0.01 Ry, conv_thr 1e-10 Ry, Gamma-centred 12x12x4 mesh (bulk) and
# 12x12x1 (layer), one MPI process. AB graphite (4 atoms, ibrav = 4) at a = 2.464 A and c = 6.2 ... 9.0 A in
# steps of 0.2 A, with vdw_corr = 'dft-d3' (QE's default zero-damping D3, three-body term on) and without it
# (plain PBE); one graphene layer (2 atoms) in a cell 20 A high with each. About 3 minutes of CPU.
# CMB_QE_PSEUDO_DIR overrides where the pseudopotential is looked for.
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
# run NAME C_ANG LAYER(0/1) D3(0/1): one SCF in OUTDIR/runs/NAME
run() {
    local name=$1 c=$2 layer=$3 d3=$4 dir="$out/runs/$1"
    rm -rf "$dir" && mkdir -p "$dir/pseudo"
    cp "$out/pseudo/$pseudo_name" "$dir/pseudo/"
    local celldm1 celldm3 nat kz positions vdw=""
    celldm1=$(awk -v a="$a" -v b="$bohr" 'BEGIN{printf "%.10f", a/b}')
    celldm3=$(awk -v a="$a" -v c="$c" 'BEGIN{printf "%.10f", c/a}')
    if [[ $layer == 1 ]]; then
        nat=2; kz=1
        positions=$'C 0.0 0.0 0.0\nC 0.333333333333 0.666666666667 0.0'
    else
        nat=4; kz=4
        positions=$'C 0.0 0.0 0.25\nC 0.0 0.0 0.75\nC 0.333333333333 0.666666666667 0.25\nC 0.666666666667 0.333333333333 0.75'
    fi
    [[ $d3 == 1 ]] && vdw="  vdw_corr = 'dft-d3'"
    cat > "$dir/pw.in" <<PWIN
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
  ecutwfc = 40.0
  ecutrho = 320.0
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
12 12 $kz 0 0 0
PWIN
    (cd "$dir" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    grep -q 'JOB DONE' "$dir/pw.out" || { echo "reproduce.sh: run $name did not finish" >&2; exit 1; }
    rm -rf "$dir/tmp" "$dir/pseudo"
    printf '%-14s c = %5s A  %s\n' "$name" "$c" "$(grep '^!' "$dir/pw.out" | tr -s ' ')"
}

run layer_d3 20.0 1 1
run layer_pbe 20.0 1 0
cp "$out/runs/layer_d3/pw.out" "$out/workspace/layer_d3.out"
cp "$out/runs/layer_pbe/pw.out" "$out/workspace/layer_pbe.out"
for i in $(seq 1 15); do
    n=$(printf '%02d' "$i")
    c=$(awk -v i="$i" 'BEGIN{printf "%.1f", 6.0 + 0.2 * i}')
    for f in d3 pbe; do
        run "bulk_${f}_$n" "$c" 0 $([[ $f == d3 ]] && echo 1 || echo 0)
        cp "$out/runs/bulk_${f}_$n/pw.out" "$out/workspace/bulk_${f}_$n.out"
    done
done
python3 "$here/fit_reference.py" --json "$out/values.json" "$out/workspace"
