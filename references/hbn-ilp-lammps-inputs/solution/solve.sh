#!/usr/bin/env bash
# Oracle for hbn-ilp-lammps-inputs: write bilayer.data (parallel AB bilayer, orthorhombic 8-atom cell, molecule
# IDs per layer, a 60 A box) and in.lmp (Tersoff + ILP overlaid, four element names per pair_coeff, z-only
# relaxation), in a form of its own (Tersoff listed first, a non-periodic z boundary, variables). The LAMMPS of
# the image has no INTERLAYER package, so nothing is run.
set -euo pipefail
python3 - <<'PY'
import math
a, d, lz = 2.504, 3.30, 60.0
b, s = math.sqrt(3) * a, a / math.sqrt(3)
sites = [(0.0, 0.0, "B"), (a / 2, b / 2, "B"), (0.0, s, "N"), (a / 2, b / 2 + s, "N")]
lines = []
for mol, shift, z in ((1, 0.0, lz / 2 - d / 2), (2, s, lz / 2 + d / 2)):
    for x, y, el in sites:
        t = (1 if el == "B" else 2) + 2 * (mol - 1)
        lines.append(f"{len(lines) + 1} {mol} {t} 0.0 {x:.8f} {(y + shift) % b:.8f} {z:.8f}")
head = f"""parallel AB bilayer h-BN

8 atoms
4 atom types

0 {a} xlo xhi
0 {b:.8f} ylo yhi
0 {lz} zlo zhi

Masses

1 10.811
2 14.0067
3 10.811
4 14.0067

Atoms # full

"""
open("bilayer.data", "w").write(head + "\n".join(lines) + "\n")
PY
cat > in.lmp <<'LMP'
# AB bilayer h-BN: Tersoff within the layers, ILP (BNCH.ILP) between them; interlayer distance relaxed
variable        etol equal 0.0
variable        ftol equal 1.0e-10
units           metal
atom_style      full
boundary        p p f
read_data       bilayer.data
pair_style      hybrid/overlay tersoff ilp/graphene/hbn 16.0 1
pair_coeff      * * tersoff BNC.tersoff B N B N
pair_coeff      * * ilp/graphene/hbn BNCH.ILP B N B N
neighbor        2.0 bin
compute         inter all pair ilp/graphene/hbn
thermo_style    custom step pe c_inter fnorm
thermo          20
fix             zonly all setforce 0.0 0.0 NULL
minimize        ${etol} ${ftol} 5000 50000
LMP
