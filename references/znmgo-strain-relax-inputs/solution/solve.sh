#!/usr/bin/env bash
# Oracle for znmgo-strain-relax-inputs: write the fixed-cell relaxations of wurtzite ZnO strained by +1% and -1%
# along c (a = 3.250 A held, c = 5.207 A x (1 +- 0.01)), starting from u = 0.382, in a form that differs on purpose
# from the reference input sets (A and C in angstrom, upper-case namelists, 45/400 Ry, an 8x8x5 mesh, damped
# dynamics, 5e-5 Ry/bohr), so that passing shows the grader compares effective settings and crystals, not text.
set -euo pipefail
write() {  # name c
  cat > "$1.in" <<PWIN
&CONTROL
  calculation = 'relax'
  prefix = 'zno_$1'
  outdir = './out'
  pseudo_dir = './pseudo/'
  forc_conv_thr = 5.0d-5
  etot_conv_thr = 1.0d-6
/
&SYSTEM
  ibrav = 4
  A = 3.250
  C = $2
  nat = 4
  ntyp = 2
  ecutwfc = 45.0
  ecutrho = 400.0
/
&ELECTRONS
  conv_thr = 1.0d-10
/
&IONS
  ion_dynamics = 'damp'
/
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {crystal}
  Zn  0.333333333  0.666666667  0.000000
  Zn  0.666666667  0.333333333  0.500000
  O   0.333333333  0.666666667  0.382000
  O   0.666666667  0.333333333  0.882000
K_POINTS {automatic}
  8 8 5 0 0 0
PWIN
}
write strain_p1 5.25907
write strain_m1 5.15493
