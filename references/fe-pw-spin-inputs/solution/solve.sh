#!/usr/bin/env bash
# Oracle for fe-pw-spin-inputs: the pw.in an expert writes after the convergence study the prompt defines
# (reproduce/convergence.py: ecutwfc 35 Ry, ecutrho 160 Ry and an unshifted 12x12x12 mesh are the smallest
# candidates meeting the targets at cold smearing of 0.02 Ry). Written in a form that differs on purpose from the
# reference input (lattice through A in angstrom, upper-case namelists, 'cold' for the smearing, braces on the
# cards), so that passing shows the grader compares effective settings, not text.
set -euo pipefail
cat > pw.in <<'PWIN'
&CONTROL
  calculation = 'scf'
  prefix = 'fe_fm'
  outdir = './out'
  pseudo_dir = './pseudo/'
/
&SYSTEM
  ibrav = 3
  A = 2.866
  nat = 1
  ntyp = 1
  ecutwfc = 35
  ecutrho = 160
  occupations = 'smearing'
  smearing = 'cold'
  degauss = 0.02
  nspin = 2
  starting_magnetization(1) = 0.4
/
&ELECTRONS
  conv_thr = 1.0d-9
  mixing_beta = 0.3
/
ATOMIC_SPECIES
  Fe  55.845  Fe.pbe-nd-rrkjus.UPF
ATOMIC_POSITIONS {crystal}
  Fe  0.0  0.0  0.0
K_POINTS {automatic}
  12 12 12 0 0 0
PWIN
cat pw.in
