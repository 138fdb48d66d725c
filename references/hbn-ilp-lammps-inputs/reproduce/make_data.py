"""bilayer.data of hbn-ilp-lammps-inputs: the parallel AB bilayer of h-BN in the orthorhombic a x sqrt(3)a cell.

Usage: make_data.py PATH
Eight atoms, atom_style full (id mol type q x y z), the box from the origin, 40 A along z. Bottom layer (molecule
1): B (type 1) at (0, 0) and (a/2, sqrt(3)a/2), N (type 2) at (0, a/sqrt(3)) and (a/2, sqrt(3)a/2 + a/sqrt(3)).
Top layer (molecule 2, types 3 and 4): the bottom one moved by a/sqrt(3) along +y (B over N) and 3.30 A along
+z, the pair centred in the box.
"""

from __future__ import annotations

import math
import sys

A = 2.504
D0 = 3.30
LZ = 40.0
MASSES = {"B": 10.811, "N": 14.0067}


def main() -> None:
    b = math.sqrt(3) * A
    s = A / math.sqrt(3)
    z0 = 0.5 * (LZ - D0)
    layer = [("B", 0.0, 0.0), ("B", A / 2, b / 2), ("N", 0.0, s), ("N", A / 2, b / 2 + s)]
    rows = []
    for mol, dy, z in ((1, 0.0, z0), (2, s, z0 + D0)):
        for el, x, y in layer:
            rows.append((mol, 2 * (mol - 1) + (1 if el == "B" else 2), x % A, (y + dy) % b, z))
    out = ["bilayer h-BN, parallel AB stacking (types 1 B, 2 N of layer 1; 3 B, 4 N of layer 2)", "",
           f"{len(rows)} atoms", "4 atom types", "",
           f"0.0 {A:.6f} xlo xhi", f"0.0 {b:.6f} ylo yhi", f"0.0 {LZ:.6f} zlo zhi", "",
           "Masses", "", *(f"{t} {MASSES[el]}" for t, el in enumerate("BNBN", 1)), "", "Atoms # full", ""]  # fmt: skip
    out += [f"{i} {mol} {t} 0.0 {x:.6f} {y:.6f} {z:.6f}" for i, (mol, t, x, y, z) in enumerate(rows, 1)]
    with open(sys.argv[1], "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
