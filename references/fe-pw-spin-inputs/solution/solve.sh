#!/usr/bin/env bash
# Oracle for fe-pw-spin-inputs: write pw.in for ferromagnetic bcc Fe at a = 2.866 A as an expert would, in a form
# that differs on purpose from the reference input (lattice through A in angstrom, upper-case namelists, 'cold'
# smearing, a 16x16x16 mesh, 45/360 Ry), so that passing shows the grader compares effective settings, not text.
# Choices (references/fe-pw-spin-inputs/reproduce): the ultrasoft pseudopotential needs ecutrho well above 4x
# (8x here), 45 Ry is within 0.2 mRy/atom of 60 Ry, the unshifted 16x16x16 mesh converges the moment to 0.01 muB
# at 0.015 Ry of cold smearing; nspin = 2 with a starting magnetization on Fe.
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
  ecutwfc = 45
  ecutrho = 360
  occupations = 'smearing'
  smearing = 'cold'
  degauss = 0.015
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
  16 16 16 0 0 0
PWIN
cat pw.in
