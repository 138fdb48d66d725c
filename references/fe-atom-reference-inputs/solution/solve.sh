#!/usr/bin/env bash
# Oracle for fe-atom-reference-inputs: the pw.x input of the isolated spin-polarised Fe atom that the cohesive
# energy of bcc iron needs. Cutoffs, functional and pseudopotential are those of the staged bulk run
# (fe_pbe_bcc_fm_08.out prints 45 Ry, 360 Ry, PBE, Fe.pbe-nd-rrkjus.UPF); the atom sits alone in an orthorhombic
# 12 x 12.5 x 13 A box (the unequal edges lower the symmetry so that the partly filled minority d shell need not
# be shared over degenerate orbitals), at the Gamma point, with nspin = 2 and the total magnetization fixed at
# the 4 muB of the 5D ground term (3d6 4s2: four unpaired d electrons), and a small Gaussian width. Written on
# purpose unlike the reference input (A, B, C in angstrom, the atom at the box centre, upper-case namelists).
set -euo pipefail
grep -E 'kinetic-energy cutoff|charge density cutoff|Exchange-correlation' fe_pbe_bcc_fm_08.out | head -3
cat > pw.in <<'PWIN'
&CONTROL
  calculation = 'scf'
  prefix = 'fe_atom'
  outdir = './out'
  pseudo_dir = './pseudo/'
/
&SYSTEM
  ibrav = 8
  A = 12.0
  B = 12.5
  C = 13.0
  nat = 1
  ntyp = 1
  ecutwfc = 45.0
  ecutrho = 360.0
  nspin = 2
  starting_magnetization(1) = 0.5
  tot_magnetization = 4
  occupations = 'smearing'
  smearing = 'gaussian'
  degauss = 0.005
/
&ELECTRONS
  conv_thr = 1.0d-7
  mixing_beta = 0.2
  electron_maxstep = 200
/
ATOMIC_SPECIES
  Fe  55.845  Fe.pbe-nd-rrkjus.UPF
ATOMIC_POSITIONS {angstrom}
  Fe  6.0  6.25  6.5
K_POINTS {gamma}
PWIN
cat pw.in
