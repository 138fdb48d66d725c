"""The staged sige_intermixed.data of sige-interface-workflow: the unrelaxed intermixed Si/Ge(001) superlattice.

Usage: make_data.py PATH
2x2 cubic cells across at the Tersoff (1989) lattice constant of Si (5.432005 A), 32 Si planes then 32 Ge planes
along z (Si spacing a_Si/4, Ge planes at the cubic Ge spacing a_Ge/4, a_Ge = 5.656747 A: the relaxation along
[001] is the workflow's to do), the stack shifted by a_Si/8. Two of the eight atoms of the last Si plane are Ge and two of the first Ge plane are Si (the pattern
of sige_device.h5 of sige-agf-transmission). Atom types 1 = Si, 2 = Ge, masses included.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

A_SI, A_GE = 5.432005, 5.656747
N = 32
SWAP_SI, SWAP_GE = (1, 6), (2, 5)
CUBE = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.25], [0.75, 0.75, 0.25],
                 [0, 0.5, 0.5], [0.5, 0, 0.5], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75]])  # fmt: skip


def main() -> None:
    pos, typ, plane = [], [], []
    spacing = [A_SI / 4] * N + [A_GE / 4] * N
    z = A_SI / 8
    for k in range(2 * N):
        for ix in range(2):
            for iy in range(2):
                for fx, fy in CUBE[[2 * (k % 4), 2 * (k % 4) + 1], :2]:
                    pos.append([(fx + ix) * A_SI, (fy + iy) * A_SI, z])
                    typ.append(1 if k < N else 2)
                    plane.append(k)
        z += spacing[k]
    typ, plane = np.array(typ), np.array(plane)
    last_si, first_ge = np.where(plane == N - 1)[0], np.where(plane == N)[0]
    typ[last_si[list(SWAP_SI)]] = 2
    typ[first_ge[list(SWAP_GE)]] = 1
    lz = sum(spacing)
    lines = ["Intermixed Si/Ge(001) superlattice, 2x2 cells, 32 Si + 32 Ge planes, unrelaxed (types 1 = Si, 2 = Ge)",
             "", f"{len(pos)} atoms", "2 atom types", "", f"0.0 {2 * A_SI:.6f} xlo xhi", f"0.0 {2 * A_SI:.6f} ylo yhi",
             f"0.0 {lz:.6f} zlo zhi", "", "Masses", "", "1 28.0855", "2 72.63", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} {t} {x:.6f} {y:.6f} {zz:.6f}" for i, (t, (x, y, zz)) in enumerate(zip(typ, pos))]
    Path(sys.argv[1]).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
