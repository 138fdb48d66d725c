#!/usr/bin/env bash
# Oracle for znmgo-berry-phase-inputs: write the SCF and Berry-phase pw.x inputs of wurtzite ZnO (u = 0.382) and
# of its layered-hexagonal reference (u = 1/2) in the clamped cell a = 3.250 A, c = 5.207 A, in a form that
# differs on purpose from the reference input sets (A and C in angstrom instead of celldm, upper-case namelists,
# denser meshes, 45 Ry), so that passing shows the grader compares effective settings and crystals, not text.
set -euo pipefail
write() {  # name u prefix kind
  local name=$1 u=$2 prefix=$3 kind=$4 calc=scf extra="" kpts="8 8 5 0 0 0"
  local u2
  u2=$(python3 -c "print(f'{0.5 + $u:.4f}')")
  if [ "$kind" = bp ]; then
    calc=nscf
    extra=$'  lberry = .TRUE.\n  gdir = 3\n  nppstr = 10'
    kpts="6 6 6 0 0 0"
  fi
  cat > "$name.$kind.in" <<PWIN
&CONTROL
  calculation = '$calc'
  prefix = '$prefix'
  outdir = './out'
  pseudo_dir = './pseudo/'
$extra
/
&SYSTEM
  ibrav = 4
  A = 3.250
  C = 5.207
  nat = 4
  ntyp = 2
  ecutwfc = 45.0
  ecutrho = 400.0
/
&ELECTRONS
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {crystal}
  Zn  0.333333333  0.666666667  0.000000
  Zn  0.666666667  0.333333333  0.500000
  O   0.333333333  0.666666667  $u
  O   0.666666667  0.333333333  $u2
K_POINTS {automatic}
  $kpts
PWIN
}
write wz 0.382 zno_wz scf
write wz 0.382 zno_wz bp
write h 0.5 zno_h scf
write h 0.5 zno_h bp
