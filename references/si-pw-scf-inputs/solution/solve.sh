#!/usr/bin/env bash
# Oracle for si-pw-scf-inputs: write pw.in for diamond Si at a = 5.431 A as an expert would, in a form that
# differs on purpose from the reference input set (lattice given in angstrom through A, upper-case namelists,
# a 12x12x12 mesh, tighter conv_thr left at 1e-9), so that passing shows the grader compares effective settings,
# not text. Convergence behind the choices (references/si-pw-scf-inputs/reproduce): 30 Ry is within 0.62 meV/atom
# of 80 Ry; the Gamma-centred 12x12x12 mesh within 0.07 meV/atom of 20x20x20. Silicon is a semiconductor: fixed
# occupations, no spin. The pseudopotential is norm-conserving, so the default ecutrho = 4 ecutwfc is right.
set -euo pipefail
cat > pw.in <<'PWIN'
&CONTROL
  calculation = 'scf'
  prefix = 'si'
  outdir = './out'
  pseudo_dir = './pseudo'
/
&SYSTEM
  ibrav = 2
  A = 5.431
  nat = 2
  ntyp = 1
  ecutwfc = 30
  occupations = 'fixed'
/
&ELECTRONS
  conv_thr = 1.0d-9
/
ATOMIC_SPECIES
  Si  28.0855  Si.pbe-rrkj.UPF
ATOMIC_POSITIONS {crystal}
  Si  0.00  0.00  0.00
  Si  0.25  0.25  0.25
K_POINTS {automatic}
  12 12 12 0 0 0
PWIN
# Check that pw.x accepts it when pw.x and the staged pseudopotential are at hand (optional, about a second).
if command -v pw.x >/dev/null && [[ -f pseudo/Si.pbe-rrkj.UPF ]]; then
    tmp=$(mktemp -d)
    cp -r pw.in pseudo "$tmp/"
    (cd "$tmp" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out 2>&1 && grep -q 'JOB DONE' pw.out) \
        || { echo "solve.sh: pw.x rejected pw.in" >&2; exit 1; }
    grep '^!' "$tmp/pw.out"
    rm -rf "$tmp"
fi
