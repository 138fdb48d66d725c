"""Stage 2 of the crn-magnons-workflow oracle: a POSCAR of the latest geometry of the interrupted pw.x vc-relax.

Usage: python3 write_poscar.py RELAX_OUT [--block -1] > POSCAR   (--block -2: the geometry before the latest)

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


def last_geometry(text: str, block: int = -1) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    cell_block = text.split("CELL_PARAMETERS (angstrom)")[block].strip().splitlines()[:3]
    cell = np.array([[float(x) for x in ln.split()] for ln in cell_block])
    atoms = []
    for ln in text.split("ATOMIC_POSITIONS (crystal)")[block].strip().splitlines():
        tok = ln.split()
        if len(tok) != 4:
            break
        atoms.append((tok[0], np.array([float(t) for t in tok[1:]])))
    return cell, atoms


def main(path: str, block: int = -1) -> None:
    cell, atoms = last_geometry(Path(path).read_text(), block)
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
    main(sys.argv[1], int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--block" else -1)
