"""Oracle for slab-dipole-inputs: dipole-corrected relaxation of CO on one side of a Pt(111) slab.

Reads the staged POSCAR with plain numpy (no structure library), computes the centre of mass for DIPOL, chooses a
Gamma-centred mesh from a target in-plane spacing with one k point along the vacuum direction, fixes the two
lowest Pt layers with selective dynamics, and writes INCAR, KPOINTS, POTCAR.spec and the POSCAR back.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

MASS = {"Pt": 195.084, "C": 12.011, "O": 15.999}

lines = Path("POSCAR").read_text().splitlines()
scale = float(lines[1].split()[0])
cell = np.array([[float(x) for x in lines[i].split()[:3]] for i in (2, 3, 4)]) * scale
species = lines[5].split()
counts = [int(n) for n in lines[6].split()]
first = 7
selective = lines[first].strip().lower().startswith("s")
if selective:
    first += 1
cartesian = lines[first].strip().lower()[0] in "ck"
coords = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[first + 1 : first + 1 + sum(counts)]])
frac = coords @ np.linalg.inv(cell) if cartesian else coords
labels = [sp for sp, n in zip(species, counts) for _ in range(n)]
masses = np.array([MASS[sp] for sp in labels])
com = masses @ frac / masses.sum()

# Selective dynamics: the two lowest Pt layers stay at their bulk-like positions.
z = frac[:, 2]
pt_layers = sorted({round(zz, 4) for zz, sp in zip(z, labels) if sp == "Pt"})
fixed = set(pt_layers[:2])
out = lines[:7] + ["Selective dynamics", "Direct"]
for f, sp in zip(frac, labels):
    flag = "F F F" if sp == "Pt" and round(f[2], 4) in fixed else "T T T"
    out.append(f"  {f[0]:.10f}  {f[1]:.10f}  {f[2]:.10f}  {flag}")
Path("POSCAR").write_text("\n".join(out) + "\n")

recip = np.linalg.norm(np.linalg.inv(cell).T, axis=1) * 2 * math.pi
mesh = [max(1, math.ceil(b / 0.22)) for b in recip[:2]] + [1]
Path("KPOINTS").write_text(f"Gamma-centred, 1 along the normal\n0\nGamma\n{mesh[0]} {mesh[1]} {mesh[2]}\n0 0 0\n")

Path("INCAR").write_text(
    "# CO on Pt(111): relax ions at fixed cell, dipole correction along c\n"
    "ENCUT = 420; PREC = Normal; EDIFF = 1.0e-6; LREAL = Auto; ALGO = Normal\n"
    "ISMEAR = 1; SIGMA = 0.10\n"
    "IBRION = 1; ISIF = 2; NSW = 150; EDIFFG = -0.015; POTIM = 0.3\n"
    "LDIPOL = .TRUE.; IDIPOL = 3\n"
    f"DIPOL = {com[0]:.4f} {com[1]:.4f} {com[2]:.4f}\n"
    "LORBIT = 11; LVHAR = .TRUE.\n"
)
Path("POTCAR.spec").write_text("\n".join(species) + "\n")
print(f"centre of mass {com}, mesh {mesh}, fixed layers at z = {sorted(fixed)}")
