#!/usr/bin/env bash
# Oracle for znmgo-ordered-cell-inputs: write the vc-relax input of the ordered Zn3MgO4 cell (1x1x2 supercell of
# wurtzite ZnO, a = 3.250 A, c = 5.207 A, u = 0.382, one Zn replaced by Mg), in a form that differs on purpose from
# the reference input set (A and C in angstrom, upper-case namelists, Mg on another of the equivalent Zn sites,
# the default cell_dofree, 45/400 Ry, an 8x8x3 mesh), so that passing shows the grader compares crystals and
# effective settings, not text.
set -euo pipefail
cat > zn3mgo4.vcrelax.in <<'PWIN'
&CONTROL
  calculation = 'vc-relax'
  prefix = 'zn3mgo4'
  outdir = './out'
  pseudo_dir = './pseudo/'
  forc_conv_thr = 5.0d-5
  etot_conv_thr = 1.0d-6
/
&SYSTEM
  ibrav = 4
  A = 3.250
  C = 10.414
  nat = 8
  ntyp = 3
  ecutwfc = 45.0
  ecutrho = 400.0
/
&ELECTRONS
  conv_thr = 1.0d-10
/
&IONS
/
&CELL
  press_conv_thr = 0.2
/
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  Mg  24.305   Mg.pz-n-vbc.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {crystal}
  Zn  0.333333333  0.666666667  0.000
  Zn  0.666666667  0.333333333  0.250
  Zn  0.333333333  0.666666667  0.500
  Mg  0.666666667  0.333333333  0.750
  O   0.333333333  0.666666667  0.191
  O   0.666666667  0.333333333  0.441
  O   0.333333333  0.666666667  0.691
  O   0.666666667  0.333333333  0.941
K_POINTS {automatic}
  8 8 3 0 0 0
PWIN
