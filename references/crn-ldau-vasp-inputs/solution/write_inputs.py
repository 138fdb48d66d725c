"""Oracle for crn-ldau-vasp-inputs: AFM-[110]2 CrN, PBE+U (Dudarev, U_eff 3 eV on Cr d), full relaxation.

The magnetic cell is found without a recipe: the Cr of a 2x2x1 block of the rock-salt cube are given spins plane
by plane (the (110) plane through a Cr at (x, y, z) has index n = 2(x + y)/a0; spins up, up, down, down for
n = 0, 1, 2, 3 mod 4), and pymatgen reduces the decorated crystal to its smallest cell (8 atoms, in a setting of
pymatgen's choosing, not the reference's). The k mesh follows from a target spacing of 0.3 1/A (2 pi included).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Species, Structure
from pymatgen.io.vasp.inputs import Poscar

A0 = 4.15
cube = Structure.from_spacegroup("Fm-3m", Lattice.cubic(A0), ["Cr", "N"], [[0, 0, 0], [0.5, 0.5, 0.5]])
block = cube * (2, 2, 1)
decorated = []
for site in block:
    if site.specie.symbol == "Cr":
        plane = int(np.rint(2 * (site.coords[0] + site.coords[1]) / A0))
        spin = 1 if plane % 4 in (0, 1) else -1
    else:
        spin = 0
    decorated.append(Species(site.specie.symbol, None, spin=spin))
cell = Structure(block.lattice, decorated, block.frac_coords).get_primitive_structure()
cell = cell.get_sorted_structure(key=lambda s: (s.specie.symbol != "Cr", -s.specie.spin))
magmom = [3.0 * s.specie.spin if s.specie.symbol == "Cr" else 0.0 for s in cell]
plain = Structure(cell.lattice, [s.specie.symbol for s in cell], cell.frac_coords)
Path("POSCAR").write_text(Poscar(plain, comment="CrN AFM-[110]2 magnetic cell").get_str())

recip = np.linalg.norm(np.linalg.inv(plain.lattice.matrix).T, axis=1) * 2 * math.pi
mesh = [max(1, math.ceil(b / 0.3 - 1e-9)) for b in recip]
Path("KPOINTS").write_text(f"Gamma mesh, spacing <= 0.3 1/A\n0\nGamma\n{mesh[0]} {mesh[1]} {mesh[2]}\n0 0 0\n")

incar = {
    "SYSTEM": "CrN AFM-[110]2 PBE+U relaxation",
    "PREC": "Accurate", "ENCUT": 550, "EDIFF": "1.0E-07", "LREAL": ".FALSE.", "ALGO": "Normal",
    "ISMEAR": 0, "SIGMA": 0.03,
    "ISPIN": 2, "MAGMOM": " ".join(f"{m:.1f}" for m in magmom),
    "LDAU": ".TRUE.", "LDAUTYPE": 2, "LDAUL": "2 -1", "LDAUU": "3.00 0.00", "LDAUJ": "0.00 0.00",
    "LDAUPRINT": 1, "LMAXMIX": 4, "LASPH": ".TRUE.",
    "IBRION": 2, "ISIF": 3, "NSW": 100, "EDIFFG": -0.005, "LORBIT": 11,
}
Path("INCAR").write_text("".join(f"{k} = {v}\n" for k, v in incar.items()))
Path("POTCAR.spec").write_text("Cr_pv\nN\n")
print(f"{len(plain)}-atom cell {plain.lattice.abc} {plain.lattice.angles}, MAGMOM {incar['MAGMOM']}, mesh {mesh}")
