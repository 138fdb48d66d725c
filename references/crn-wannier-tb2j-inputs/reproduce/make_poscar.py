"""The staged POSCAR of crn-wannier-tb2j-inputs: the last geometry of the project's pw.x vc-relax of AFM-[110]2 CrN.

Usage: python3 make_poscar.py RELAX_OUT > POSCAR

Takes the last CELL_PARAMETERS (angstrom) and ATOMIC_POSITIONS (crystal) block pw.x wrote, orders the Cr as
Cr1, Cr1, Cr2, Cr2 (species Cr1 carries the up, Cr2 the down moment in the run: up, up, down, down in POSCAR
order) and folds fractional coordinates into [0, 1). RELAX_OUT is the run staged for crn-relaxed-structure
(tasks/crn-magnons/crn-relaxed-structure/workspace/relax.out; its input is references/crn-relaxed-structure/
reproduce/relax.in), stopped after six SCF cycles: the geometry is the one BFGS wrote after the sixth.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def last_geometry(text: str) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    cell_block = text.rsplit("CELL_PARAMETERS (angstrom)", 1)[1].strip().splitlines()[:3]
    cell = np.array([[float(x) for x in ln.split()] for ln in cell_block])
    atoms = []
    for ln in text.rsplit("ATOMIC_POSITIONS (crystal)", 1)[1].strip().splitlines():
        tok = ln.split()
        if len(tok) != 4:
            break
        atoms.append((tok[0], np.array([float(t) for t in tok[1:]])))
    return cell, atoms


def main(path: str) -> None:
    cell, atoms = last_geometry(Path(path).read_text())
    order = [a for a in atoms if a[0] == "Cr1"] + [a for a in atoms if a[0] == "Cr2"] + [a for a in atoms if a[0] == "N"]
    assert len(order) == 8, atoms
    lines = ["CrN AFM-[110]2, 8-atom cell of the pw.x relaxation (Cr up, up, down, down)", "1.0"]
    lines += ["  " + "  ".join(f"{x:14.9f}" for x in row) for row in cell]
    lines += ["Cr N", "4 4", "direct"]
    for _, f in order:
        f = np.round(f % 1.0, 10) % 1.0
        lines.append("  " + "  ".join(f"{x:14.10f}" for x in f))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
