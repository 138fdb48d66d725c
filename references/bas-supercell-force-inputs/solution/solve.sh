#!/usr/bin/env bash
# Oracle for bas-supercell-force-inputs: phonopy writes the first displaced 64-atom supercell from the staged
# unit cell, and the pw.x namelists are written around it as an expert would, in a form that differs on purpose
# from the reference input (upper-case namelists, an explicit occupations = 'fixed', conv_thr 1e-11, mixing_beta), so
# that passing shows the grader compares effective settings. Convergence behind the choices
# (references/bas-supercell-force-inputs/reproduce): 60 Ry is the smallest candidate within 1 mRy/atom; the 2x2x2
# shifted supercell mesh is within 0.1 mRy/atom, its Gamma point alone 8 mRy/atom off.
set -euo pipefail
work=$(mktemp -d)
cp unitcell.in "$work/"
(cd "$work" && phonopy-init --qe -d --dim="2 2 2" -c unitcell.in > phonopy-init.log 2>&1) \
    || { echo "solve.sh: phonopy-init failed" >&2; cat "$work/phonopy-init.log" >&2; exit 1; }
{
    cat <<'IN'
&CONTROL
  calculation = 'scf'
  prefix = 'bas_d1'
  outdir = './out'
  pseudo_dir = './pseudo'
  tprnfor = .true.
/
&SYSTEM
  ibrav = 0
  nat = 64
  ntyp = 2
  ecutwfc = 60
  occupations = 'fixed'
/
&ELECTRONS
  conv_thr = 1.0d-11
  mixing_beta = 0.5
/
K_POINTS {automatic}
  2 2 2 1 1 1
IN
    grep -v '^!' "$work/supercell-001.in"
} > pw.in
rm -rf "$work"
grep -q 'nat = 64' pw.in
