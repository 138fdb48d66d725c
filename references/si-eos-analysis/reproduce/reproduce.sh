#!/usr/bin/env bash
# Re-run the seven pw.x SCF calculations whose outputs are staged in the si-eos-analysis workspace.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-eos-reproduce)
#   OUTDIR/runs/NN/       one directory per lattice constant: pw.in, pw.out, pseudo/ and outdir/
#   OUTDIR/workspace/     scf_NN.out, the files committed under tasks/.../si-eos-analysis/workspace/
#   OUTDIR/values.json    a0_angstrom, B0_GPa, V0_per_atom_A3 of a third-order Birch-Murnaghan fit (ASE) to them
# The fit is also printed, with an independent linear BM3 fit as a cross-check.
#
# Pinned settings: QE 6.7 pw.x, Si.pbe-rrkj.UPF (norm-conserving PBE, from Debian's quantum-espresso-data),
# ecutwfc 30 Ry (ecutrho default 4x), Monkhorst-Pack 8x8x8 unshifted, conv_thr 1e-10 Ry, one MPI process.
# CMB_QE_PSEUDO_DIR overrides where the pseudopotential is looked for.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-si-eos-reproduce}" && cd "${1:-si-eos-reproduce}" && pwd)
pseudo_name=Si.pbe-rrkj.UPF
# celldm(1) in bohr: seven points 0.15 bohr apart (about +-4.4% in a) around the PBE minimum, placed so that
# the minimum falls between two points (no point lies within 0.7% of a0: reading off the lowest point fails).
alats=(9.82 9.97 10.12 10.27 10.42 10.57 10.72)

find_pseudo() {
    local d
    for d in ${CMB_QE_PSEUDO_DIR:-} /usr/share/espresso/pseudo; do
        if [[ -f "$d/$pseudo_name" ]]; then cat "$d/$pseudo_name"; return 0; fi
    done
    # Debian also ships the examples' pseudopotentials gzipped under the documentation folder.
    local gz
    gz=$(find /usr/share/doc/quantum-espresso -name "$pseudo_name.gz" -print -quit 2>/dev/null || true)
    if [[ -n "$gz" ]]; then zcat "$gz"; return 0; fi
    echo "reproduce.sh: $pseudo_name not found (install quantum-espresso-data or set CMB_QE_PSEUDO_DIR)" >&2
    return 1
}

command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
mkdir -p "$out/runs" "$out/workspace"
for i in "${!alats[@]}"; do
    n=$(printf '%02d' $((i + 1)))
    run="$out/runs/$n"
    rm -rf "$run" && mkdir -p "$run/pseudo"
    find_pseudo > "$run/pseudo/$pseudo_name"
    cat > "$run/pw.in" <<PWIN
&control
  calculation = 'scf'
  prefix = 'si'
  outdir = './outdir'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 2
  celldm(1) = ${alats[$i]}
  nat = 2
  ntyp = 1
  ecutwfc = 30.0
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 $pseudo_name
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
8 8 8 0 0 0
PWIN
    start=$EPOCHREALTIME
    (cd "$run" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out)
    grep -q 'JOB DONE' "$run/pw.out" || { echo "reproduce.sh: run $n did not finish" >&2; exit 1; }
    printf 'run %s  celldm(1) = %s bohr  %s  (%.1f s)\n' "$n" "${alats[$i]}" \
        "$(grep '^!' "$run/pw.out" | tr -s ' ')" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')"
    cp "$run/pw.out" "$out/workspace/scf_$n.out"
done
python3 "$here/fit_reference.py" --json "$out/values.json" "$out"/workspace/scf_*.out
