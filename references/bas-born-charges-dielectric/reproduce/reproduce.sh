#!/usr/bin/env bash
# The precomputed DFPT step of bas-born-charges-dielectric: the electronic dielectric constant, the Born effective
# charges and the zone-centre phonons of zinc-blende 11BAs (LDA, QE 6.7 pw.x + ph.x), with the k-point series of
# the dielectric constant that selects the mesh of bas-dielectric-dfpt-inputs.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./bas-born-charges-dielectric-reproduce)
#   OUTDIR/runs/kconv/k<N>/    scf + ph.x (epsil, no phonons) on N x N x N shifted meshes: eps_inf(N) in kconv.dat
#   OUTDIR/runs/gamma/         the production run: scf.in/out, ph.in/out, bas.dyn (Gamma, epsil + phonons)
#   OUTDIR/workspace/          the files staged for the agent: scf.in, ph.in, ph.out, bas.dyn
#   OUTDIR/values.json         the reference values (values.py: sum rules, non-analytic term, both isotopes)
# Pinned settings: a = 4.7225 A (the LDA EOS minimum, references/bas-supercell-force-inputs/reproduce/eos.py), B.pz-vbc.UPF and
# As.pz-bhs.UPF, ecutwfc 70 Ry, fixed occupations, conv_thr 1e-12 Ry, tr2_ph 1e-16; production mesh 12x12x12
# shifted. One MPI process per run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo=/usr/share/espresso/pseudo
out=$(mkdir -p "${1:-bas-born-charges-dielectric-reproduce}" && cd "${1:-bas-born-charges-dielectric-reproduce}" && pwd)
for exe in pw.x ph.x; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
export OMP_NUM_THREADS=1
mkdir -p "$out/pseudo" "$out/workspace"
cp "$pseudo/B.pz-vbc.UPF" "$pseudo/As.pz-bhs.UPF" "$out/pseudo/"

scf_input() {  # scf_input K PREFIX
    cat <<IN
&control
  calculation = 'scf'
  prefix = '$2'
  outdir = './tmp'
  pseudo_dir = '$3'
/
&system
  ibrav = 2
  celldm(1) = 8.924240
  nat = 2
  ntyp = 2
  ecutwfc = 70.0
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
$1 $1 $1 1 1 1
IN
}

# ---------------------------------------------------------------- k-point convergence of eps_inf (no phonons)
mkdir -p "$out/runs/kconv"
: > "$out/runs/kconv/kconv.dat"
for k in 4 6 8 10 12 14 16; do
    run="$out/runs/kconv/k$k"; rm -rf "$run"; mkdir -p "$run"
    scf_input "$k" bas ../../../pseudo > "$run/scf.in"
    cat > "$run/ph.in" <<IN
eps_inf of BAs, $k x $k x $k mesh
&inputph
  prefix = 'bas'
  outdir = './tmp'
  fildyn = 'bas.dyn'
  tr2_ph = 1.0d-16
  epsil = .true.
  trans = .false.
/
0.0 0.0 0.0
IN
    (cd "$run" && pw.x -in scf.in > scf.out && ph.x -in ph.in > ph.out)
    grep -q 'JOB DONE' "$run/ph.out" || { echo "reproduce.sh: ph.x failed at k=$k" >&2; exit 1; }
    rm -rf "$run/tmp"
    eps=$(grep -A2 'Dielectric constant in cartesian axis' "$run/ph.out" | tail -1 | awk '{print $2}')
    echo "$k $eps" >> "$out/runs/kconv/kconv.dat"
    echo "k = $k: eps_inf = $eps"
done

# ---------------------------------------------------------------- production: Gamma with epsil and phonons
run="$out/runs/gamma"; rm -rf "$run"; mkdir -p "$run"
scf_input 12 bas ./pseudo > "$run/scf.in"
mkdir -p "$run/pseudo" && cp "$out/pseudo/"*.UPF "$run/pseudo/"
cat > "$run/ph.in" <<'IN'
Born charges, eps_inf and zone-centre phonons of BAs
&inputph
  prefix = 'bas'
  outdir = './tmp'
  fildyn = 'bas.dyn'
  tr2_ph = 1.0d-16
  epsil = .true.
/
0.0 0.0 0.0
IN
(cd "$run" && pw.x -in scf.in > scf.out && ph.x -in ph.in > ph.out)
grep -q 'JOB DONE' "$run/ph.out" || { echo "reproduce.sh: ph.x failed at Gamma" >&2; exit 1; }
rm -rf "$run/tmp" "$run/_ph0"
for f in scf.in ph.in ph.out bas.dyn; do cp "$run/$f" "$out/workspace/$f"; done

python3 "$here/values.py" "$out"
