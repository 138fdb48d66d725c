"""Oracle for hse-gap-inputs: HSE06 SCF of zincblende GaAs on a Gamma-centred mesh (ASE builds the cell)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from ase.build import bulk
from ase.io import write

atoms = bulk("GaAs", "zincblende", a=5.653)
write("POSCAR", atoms, format="vasp", direct=True, sort=False)
recip = np.linalg.norm(np.linalg.inv(atoms.cell.array).T, axis=1) * 2 * math.pi
n = max(math.ceil(b / 0.25) for b in recip)
n += n % 2  # an even mesh so that NKRED = 2 divides it
Path("KPOINTS").write_text(f"Gamma-centred\n0\nGamma\n{n} {n} {n}\n0 0 0\n")
Path("INCAR").write_text(
    "SYSTEM = GaAs HSE06\n"
    "ENCUT = 400 ; PREC = Normal ; EDIFF = 1.0E-7\n"
    "LHFCALC = .TRUE. ; HFSCREEN = 0.2 ; GGA = PE\n"
    "ALGO = Damped ; TIME = 0.4 ; NKRED = 2 ; PRECFOCK = Fast\n"
    "ISMEAR = 0 ; SIGMA = 0.02\n"
    "NBANDS = 18\n"
)
Path("POTCAR.spec").write_text("Ga_d\nAs\n")
print("mesh", n)
