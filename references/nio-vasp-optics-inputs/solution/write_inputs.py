"""Oracle for nio-vasp-optics-inputs: AFM-II NiO, PBE+U (Dudarev, U_eff 6.2 eV on Ni d), LOPTICS in one static run.

The magnetic cell is found the way one would without a recipe: spins are set plane by plane on the rocksalt cell
doubled in every direction (sign alternating between successive (111) planes of Ni), and pymatgen reduces the
decorated crystal to its smallest cell (4 atoms, another setting than the reference's). The k mesh follows from a
target spacing of 0.2 1/A (2 pi included) in that cell. With Ni_pv and O the cell holds 44 electrons, 22 occupied
bands per spin; NBANDS is four times that, well above the bands that reach 30 eV above the valence-band maximum.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Species, Structure
from pymatgen.io.vasp.inputs import Poscar

A = 4.17
OCCUPIED = 22  # (2 x 16 + 2 x 6) / 2 per spin channel
conv = Structure.from_spacegroup("Fm-3m", Lattice.cubic(A), ["Ni", "O"], [[0, 0, 0], [0.5, 0.5, 0.5]]) * 2
decorated = []
for site in conv:
    plane = int(np.rint(site.coords.sum() / (A / 2)))  # index of the (111) plane through the site
    spin = (1 if (plane // 2) % 2 == 0 else -1) if site.specie.symbol == "Ni" else 0
    decorated.append(Species(site.specie.symbol, None, spin=spin))
cell = Structure(conv.lattice, decorated, conv.frac_coords).get_primitive_structure()
cell = cell.get_sorted_structure(key=lambda s: (s.specie.symbol != "Ni", -s.specie.spin))
magmom = [2.0 * s.specie.spin if s.specie.symbol == "Ni" else 0.0 for s in cell]
plain = Structure(cell.lattice, [s.specie.symbol for s in cell], cell.frac_coords)
Path("POSCAR").write_text(Poscar(plain, comment="NiO AFM-II magnetic cell").get_str())

recip = np.linalg.norm(np.linalg.inv(plain.lattice.matrix).T, axis=1) * 2 * math.pi
mesh = [max(1, math.ceil(b / 0.2)) for b in recip]
Path("KPOINTS").write_text(f"Gamma mesh, spacing <= 0.2 1/A\n0\nG\n{mesh[0]} {mesh[1]} {mesh[2]}\n")

incar = {
    "SYSTEM": "NiO AFM-II GGA+U optics",
    "PREC": "Accurate",
    "ENCUT": 520,
    "EDIFF": "1E-07",
    "ALGO": "Exact",
    "NSW": 0,
    "ISMEAR": 0,
    "SIGMA": 0.05,
    "ISPIN": 2,
    "MAGMOM": " ".join(f"{m:.1f}" for m in magmom),
    "LDAU": ".TRUE.",
    "LDAUTYPE": 2,
    "LDAUL": "2 0",
    "LDAUU": "6.20 0.00",
    "LDAUJ": "0.00 0.00",
    "LMAXMIX": 4,
    "LASPH": ".TRUE.",
    "LOPTICS": ".TRUE.",
    "NBANDS": 4 * OCCUPIED,
    "NEDOS": 3000,
    "CSHIFT": 0.1,
    "LWAVE": ".FALSE.",
}
Path("INCAR").write_text("".join(f"{k} = {v}\n" for k, v in incar.items()))
Path("POTCAR.spec").write_text("Ni_pv\nO\n")
print(f"{len(plain)}-atom cell {plain.lattice.abc}, MAGMOM {incar['MAGMOM']}, mesh {mesh}, NBANDS {incar['NBANDS']}")
