"""The staged sige.data of sige-relax-inputs: a 2x2 x (16 Si + 16 Ge plane) Si/Ge(001) superlattice, unrelaxed.

Usage: make_data.py PATH
In-plane lattice: the Tersoff (1989) cubic lattice constant of Si (sige-interface-relax, 5.432005 A); Si planes
a_Si/4 apart, Ge planes at the cubic Ge spacing a_Ge/4 (a_Ge = 5.656747 A), the Si-Ge spacing taken as a_Si/4,
the stack shifted by a_Si/8 so that no plane lies on the box boundary. Written by ASE (types in alphabetical
order: 1 = Ge, 2 = Si; no Masses section).
"""

from __future__ import annotations

import sys

import numpy as np
from ase import Atoms
from ase.io import write

A_SI, A_GE = 5.432005, 5.656747
CUBE = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.25], [0.75, 0.75, 0.25],
                 [0, 0.5, 0.5], [0.5, 0, 0.5], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75]])  # fmt: skip


def main() -> None:
    species = ["Si"] * 16 + ["Ge"] * 16
    spacing = [A_SI / 4] * 16 + [A_GE / 4] * 16
    pos, sym = [], []
    z = A_SI / 8
    for k, el in enumerate(species):
        for ix in range(2):
            for iy in range(2):
                for fx, fy in CUBE[[2 * (k % 4), 2 * (k % 4) + 1], :2]:
                    pos.append([(fx + ix) * A_SI, (fy + iy) * A_SI, z])
                    sym.append(el)
        z += spacing[k]
    atoms = Atoms(sym, positions=pos, cell=np.diag([2 * A_SI, 2 * A_SI, sum(spacing)]), pbc=True)
    write(sys.argv[1], atoms, format="lammps-data", atom_style="atomic")


if __name__ == "__main__":
    main()
