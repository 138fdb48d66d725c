#!/usr/bin/env bash
# The precomputed step of si-dfpt-phonons: the phonons of diamond Si by density-functional perturbation theory on
# a 4x4x4 grid of wave vectors (QE 6.7 pw.x + ph.x + q2r.x), then the reference values from the force constants
# (reference.py: matdyn.x at Gamma, X and L with three sum rules, and the harmonic heat capacity from phonon
# densities of states on two q meshes).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-dfpt-phonons-reproduce)
#   OUTDIR/runs/dfpt/        scf.in/out, ph.in/out, si.dyn0-8, q2r.in/out, si.fc (one folder, one chain)
#   OUTDIR/runs/analysis/    matdyn.x runs of reference.py (sum rules, wave vectors, DOS meshes)
#   OUTDIR/workspace/        si.fc, scf.in, ph.in, q2r.in: the files staged for the agent
#   OUTDIR/values.json       the reference values (keys of reference.yaml)
#   OUTDIR/time-*.txt        user and wall seconds of pw.x, ph.x, q2r.x
# Pinned settings: diamond Si at a0 = 5.4755 A (celldm(1) = 10.3472 bohr, the PBE equilibrium of the study's EOS
# step), Si.pbe-rrkj.UPF, ecutwfc 30 Ry, 4x4x4 Monkhorst-Pack k mesh shifted by half a step, conv_thr 1e-12;
# ph.x tr2_ph 1e-16 on the 4x4x4 q grid (8 irreducible wave vectors; at Gamma ph.x also computes the dielectric
# tensor and Born effective charges of the insulator, which q2r.x writes into si.fc); q2r.x imposes no sum rule
# (zasr = 'no'), so both the acoustic sum rule and charge neutrality are left to the analysis. One MPI process.
# CMB_DFPT_GRID=6 runs a denser variant (6x6x6 k mesh and q grid, 16 irreducible wave vectors), which is not
# what is staged.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo="$here/../../../tasks/si-first-principles/si-fd-phonons/workspace/pseudo/Si.pbe-rrkj.UPF"
out=$(mkdir -p "${1:-si-dfpt-phonons-reproduce}" && cd "${1:-si-dfpt-phonons-reproduce}" && pwd)
for exe in pw.x ph.x q2r.x matdyn.x; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
k=${CMB_DFPT_GRID:-4}
nq=$k
export OMP_NUM_THREADS=1
run="$out/runs/dfpt"
rm -rf "$run" && mkdir -p "$run/pseudo" "$out/workspace"
cp "$pseudo" "$run/pseudo/"
cat > "$run/scf.in" <<IN
&control
  calculation = 'scf'
  prefix = 'si'
  outdir = './out'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 2
  celldm(1) = 10.3472
  nat = 2
  ntyp = 1
  ecutwfc = 30.0
/
&electrons
  conv_thr = 1.0d-12
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
$k $k $k 1 1 1
IN
cat > "$run/ph.in" <<IN
Phonons of diamond Si on a ${nq}x${nq}x${nq} q grid
&inputph
  prefix = 'si'
  outdir = './out'
  fildyn = 'si.dyn'
  tr2_ph = 1.0d-16
  ldisp = .true.
  nq1 = $nq, nq2 = $nq, nq3 = $nq
/
IN
cat > "$run/q2r.in" <<'IN'
&input
  fildyn = 'si.dyn'
  zasr = 'no'
  flfrc = 'si.fc'
/
IN
timed() {  # timed NAME EXE INPUT: run one code in the chain, recording its user and wall seconds
    (cd "$run" && /usr/bin/time -f '%U %e' -o "$out/time-$1.txt" "$2" -in "$3" > "${3%.in}.out")
    grep -q 'JOB DONE' "$run/${3%.in}.out" || { echo "reproduce.sh: $2 did not finish" >&2; exit 1; }
    echo "$2: user, wall s = $(cat "$out/time-$1.txt")"
}
timed pw pw.x scf.in
timed ph ph.x ph.in
timed q2r q2r.x q2r.in
rm -rf "$run/out/_ph0" "$run/out/si.save/wfc"*.dat
for f in si.fc scf.in ph.in q2r.in; do cp "$run/$f" "$out/workspace/$f"; done
python3 "$here/reference.py" "$out/workspace/si.fc" "$out/runs/analysis" --json "$out/values.json"
