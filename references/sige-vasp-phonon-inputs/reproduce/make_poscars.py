"""Reference POSCARs of sige-vasp-phonon-inputs: phonopy's displaced 16-atom supercells of Si and Ge.

Usage: make_poscars.py OUTDIR      writes OUTDIR/{Si,Ge}/POSCAR and OUTDIR/{Si,Ge}/SPOSCAR (undisplaced)
The 2-atom fcc primitive cell at the PBE lattice constant of eos.py (eos.json), supercell matrix 2x2x2, phonopy's default displacement directions,
amplitude 0.02 A. phonopy 4.10.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.interface.vasp import write_vasp
from phonopy.structure.atoms import PhonopyAtoms

A0 = {"Si": 5.4754, "Ge": 5.7757}
PRIM = np.array([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])


def main() -> None:
    out = Path(sys.argv[1])
    for el, a in A0.items():
        unit = PhonopyAtoms(symbols=[el] * 2, cell=PRIM * a, scaled_positions=[[0, 0, 0], [0.25, 0.25, 0.25]])
        ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 2)
        ph.generate_displacements(distance=0.02)
        (out / el).mkdir(parents=True, exist_ok=True)
        cells = ph.supercells_with_displacements
        assert len(cells) == 1, "diamond needs one displacement"
        write_vasp(str(out / el / "POSCAR"), cells[0], direct=True)
        write_vasp(str(out / el / "SPOSCAR"), ph.supercell, direct=True)
        print(el, ph.displacements)


if __name__ == "__main__":
    main()
