"""Oracle for optics-inputs: LOPTICS for diamond Si with enough empty bands, a fine grid and a dense mesh.

ASE builds the 2-atom primitive cell (in another orientation than the reference's pymatgen cell); 4 bands are
occupied, and the first band that lies 15 eV above the valence-band maximum everywhere is the 15th, so 32 bands
leave a wide margin for the Kramers-Kronig transformation.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from ase.build import bulk
from ase.io import write

atoms = bulk("Si", "diamond", a=5.431)
write("POSCAR", atoms, format="vasp", direct=True)
recip = np.linalg.norm(np.linalg.inv(atoms.cell.array).T, axis=1) * 2 * math.pi
n = math.ceil(max(recip) / 0.12)
Path("KPOINTS").write_text(f"Gamma-centred\n0\nGamma\n{n} {n} {n}\n0 0 0\n")
Path("INCAR").write_text(
    "SYSTEM = Si optics\n"
    "ENCUT = 320\nPREC = Accurate\nEDIFF = 1E-8\n"
    "ISMEAR = -5\n"
    "LOPTICS = .TRUE.\nNBANDS = 32\nNEDOS = 3000\nCSHIFT = 0.100\n"
    "NSW = 0\n"
)
Path("POTCAR.spec").write_text("Si\n")
print("mesh", n)
