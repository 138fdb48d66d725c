#!/usr/bin/env bash
# Oracle for bas-dielectric-dfpt-inputs: the pw.x ground state and the ph.x Gamma-point linear response
# (dielectric tensor, Born effective charges, phonons) of 11BAs, written as an expert would and in a form that
# differs on purpose from the reference inputs (the lattice constant as A in angstrom, namelist variables
# comma-separated, tr2_ph 1e-15, the 11B mass repeated as amass in ph.in), so that
# passing shows the grader compares effective settings. The choices follow the convergence in
# references/bas-dielectric-dfpt-inputs/reproduce and references/bas-born-charges-dielectric/reproduce.
set -euo pipefail
cat > scf.in <<'IN'
&CONTROL
  calculation = 'scf', prefix = 'bas11', outdir = './tmp/', pseudo_dir = './pseudo/'
/
&SYSTEM
  ibrav = 2, A = 4.7225, nat = 2, ntyp = 2,
  ecutwfc = 70.0, occupations = 'fixed'
/
&ELECTRONS
  conv_thr = 1.0d-12
/
ATOMIC_SPECIES
  B   11.0093  B.pz-vbc.UPF
  As  74.9216  As.pz-bhs.UPF
ATOMIC_POSITIONS {crystal}
  B   0.00  0.00  0.00
  As  0.25  0.25  0.25
K_POINTS {automatic}
  6 6 6 1 1 1
IN
cat > ph.in <<'IN'
BAs (11B): eps_inf, Born effective charges and phonons at Gamma
&INPUTPH
  prefix = 'bas11'
  outdir = './tmp/'
  fildyn = 'bas11.dynG'
  tr2_ph = 1.0d-15
  epsil = .true.
  amass(1) = 11.0093
  amass(2) = 74.9216
/
0.0 0.0 0.0
IN
