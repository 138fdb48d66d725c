#!/usr/bin/env bash
# Convergence behind the k-point window of bas-dielectric-dfpt-inputs: eps_inf of BAs (LDA, a = 4.7225 A, 70 Ry)
# from ph.x (epsil, no phonons). The shifted series 4..16 that selects the mesh is in
# references/bas-born-charges-dielectric/reproduce (runs/kconv/kconv.dat); this adds the unshifted meshes
# (why the prompt fixes the offset) and the cutoff dependence of eps_inf on the selected 6x6x6 shifted mesh.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./bas-dielectric-dfpt-inputs-reproduce)
#   OUTDIR/kconv.dat     n, shift, eps_inf
#   OUTDIR/ecut.dat      ecutwfc, eps_inf (6x6x6 shifted)
# Measured 2026-12-01: 2.1 min of CPU (user + system) on one core, 2.6 min wall (shared machine).
set -euo pipefail
out=$(mkdir -p "${1:-bas-dielectric-dfpt-inputs-reproduce}" && cd "${1:-bas-dielectric-dfpt-inputs-reproduce}" && pwd)
for exe in pw.x ph.x; do command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }; done
export OMP_NUM_THREADS=1
mkdir -p "$out/pseudo" "$out/runs"
cp /usr/share/espresso/pseudo/B.pz-vbc.UPF /usr/share/espresso/pseudo/As.pz-bhs.UPF "$out/pseudo/"
eps_run() {  # eps_run NAME ECUT N SHIFT
    local run="$out/runs/$1"; rm -rf "$run"; mkdir -p "$run"
    cat > "$run/scf.in" <<IN
&control
  prefix = 'bas'
  outdir = './tmp'
  pseudo_dir = '../../pseudo'
/
&system
  ibrav = 2, celldm(1) = 8.924240, nat = 2, ntyp = 2, ecutwfc = $2
/
&electrons
  conv_thr = 1.0d-12
/
ATOMIC_SPECIES
B  11.0093 B.pz-vbc.UPF
As 74.9216 As.pz-bhs.UPF
ATOMIC_POSITIONS crystal
B  0.00 0.00 0.00
As 0.25 0.25 0.25
K_POINTS automatic
$3 $3 $3 $4 $4 $4
IN
    cat > "$run/ph.in" <<IN
eps_inf
&inputph
  prefix = 'bas', outdir = './tmp', fildyn = 'bas.dyn', tr2_ph = 1.0d-16, epsil = .true., trans = .false.
/
0.0 0.0 0.0
IN
    (cd "$run" && pw.x -in scf.in > scf.out && ph.x -in ph.in > ph.out)
    rm -rf "$run/tmp" "$run/_ph0"
    grep -A2 'Dielectric constant in cartesian axis' "$run/ph.out" | tail -1 | awk '{print $2}'
}
: > "$out/kconv.dat"
for n in 4 6 8 10; do
    for s in 0; do
        echo "$n $s $(eps_run "k$n$s" 70 "$n" "$s")" >> "$out/kconv.dat"
    done
done
: > "$out/ecut.dat"
for e in 40 50 60 80; do
    echo "$e $(eps_run "e$e" "$e" 6 1)" >> "$out/ecut.dat"
done
cat "$out/kconv.dat" "$out/ecut.dat"
