#!/usr/bin/env bash
# Oracle for hbn-sliding-relax-inputs: pw.in for the bilayer a quarter of the way from AB to BA (top layer shifted
# by 1.25 a/sqrt(3) along +y from AA), written on purpose unlike the reference deck: A and C in angstrom,
# Cartesian angstrom positions with the bottom layer at z = 5 A (another origin), upper-case namelists,
# 'grimme-d3', and the dipole correction's ramp below the bilayer (0.02-0.07 of the cell, 3.3 A under the bottom
# layer) instead of above it.
# Why each setting: the relaxation keeps the stacking only if the in-plane force components are held (if_pos
# 0 0 1), since this point is not a sliding minimum; the AB-like stacking is polar, so the images are decoupled by
# the dipole correction along z (edir = 3; pw.x's default edir = 1 is in-plane, and its default ramp at 0.5-0.6 of
# the cell would cross a centred bilayer); no applied field (eamp = 0).
set -euo pipefail
python3 - <<'PY'
import math
a, c, d, lam = 2.504, 25.0, 3.30, 1.25
z1 = 5.0
s = lam * a / math.sqrt(3)
bottom = [("B", 0.0, 0.0), ("N", 0.0, a / math.sqrt(3))]  # N at (1/3, 2/3): Cartesian (0, a/sqrt3)
atoms = [(el, x, y, z1) for el, x, y in bottom] + [(el, x, y + s, z1 + d) for el, x, y in bottom]
lines = "\n".join(f"{el:2s} {x:14.9f} {y:14.9f} {z:14.9f}  0 0 1" for el, x, y, z in atoms)
open("pw.in", "w").write(f"""&CONTROL
  calculation = 'relax'
  prefix = 'bn'
  outdir = './out'
  pseudo_dir = './pseudo/'
  forc_conv_thr = 5.0d-5
  tefield = .TRUE.
  dipfield = .TRUE.
/
&SYSTEM
  ibrav = 4
  A = {a}
  C = {c}
  nat = 4
  ntyp = 2
  ecutwfc = 45.0
  ecutrho = 360.0
  vdw_corr = 'grimme-d3'
  edir = 3
  emaxpos = 0.02
  eopreg = 0.05
/
&ELECTRONS
  conv_thr = 1.0d-9
/
&IONS
  ion_dynamics = 'bfgs'
/
ATOMIC_SPECIES
B  10.81  B.pbe-n-rrkjus_psl.1.0.0.UPF
N  14.01  N.pbe-n-rrkjus_psl.1.0.0.UPF
ATOMIC_POSITIONS angstrom
{lines}
K_POINTS automatic
12 12 1 0 0 0
""")
PY
