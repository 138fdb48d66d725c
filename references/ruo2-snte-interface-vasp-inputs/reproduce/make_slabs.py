"""Write the two unstrained slabs staged for ruo2-snte-interface-vasp-inputs (numpy only, no ASE needed).

SnTe_110_slab.vasp: rock-salt SnTe (a = 6.32 A) cut parallel to (110), 7 atomic layers (one Sn and one Te each)
    in the rectangular surface cell a1 = a/2 [1-10] (4.469 A), a2 = a [001] (6.32 A), normal along z.
RuO2_100_slab.vasp: rutile RuO2 (a = 4.492 A, c = 3.106 A, u = 0.3058) cut parallel to (100), two unit cells
    thick (four Ru layers) in the 1 x 2 surface cell a1 = b (4.492 A), a2 = 2c (6.212 A), normal along z; the
    Ru layers alternate between the sublattices A (Ru at the corner of the rutile cell) and B (body centre),
    A lowest.
Each file has 10 A of vacuum and lists its atoms species by species, bottom to top.

Usage: python3 make_slabs.py OUTDIR
"""

import sys
from pathlib import Path

import numpy as np

A_SNTE = 6.32
A_RUO2, C_RUO2, U_O = 4.492, 3.106, 0.3058
VAC = 10.0


def write_poscar(path, title, cell_xy, atoms):
    """atoms: list of (species, x, y, z) Cartesian; the cell is orthorhombic with c = thickness + VAC."""
    z = np.array([a[3] for a in atoms])
    z0 = z.min()
    c = z.max() - z0 + VAC
    species = []
    for a in atoms:
        if a[0] not in species:
            species.append(a[0])
    lines = [
        title,
        "1.0",
        f"  {cell_xy[0]:.6f} 0.000000 0.000000",
        f"  0.000000 {cell_xy[1]:.6f} 0.000000",
        f"  0.000000 0.000000 {c:.6f}",
        "  " + " ".join(species),
        "  " + " ".join(str(sum(1 for a in atoms if a[0] == s)) for s in species),
        "Cartesian",
    ]
    for s in species:
        for a in sorted((a for a in atoms if a[0] == s), key=lambda a: (round(a[3], 4), a[1], a[2])):
            lines.append(f"  {a[1] % cell_xy[0]:.6f} {a[2] % cell_xy[1]:.6f} {a[3] - z0:.6f}  {s}")
    Path(path).write_text("\n".join(lines) + "\n")


def snte(nlayers=7):
    """The SnTe(110) slab: in-plane cell (a/sqrt2, a) and its atoms (species, x, y, z) in angstrom."""
    a = A_SNTE
    u = np.array([1, -1, 0]) / np.sqrt(2)
    v = np.array([0, 0, 1.0])
    n = np.array([1, 1, 0]) / np.sqrt(2)
    fcc = np.array([[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]])
    L1, L2, d = a / np.sqrt(2), a, a / (2 * np.sqrt(2))
    atoms = {}
    for i in range(-4, 5):
        for j in range(-4, 5):
            for k in range(-4, 5):
                for f in fcc:
                    for sp, off in (("Sn", [0, 0, 0]), ("Te", [0.5, 0, 0])):
                        r = (np.array([i, j, k]) + f + off) * a
                        h = r @ n
                        layer = round(h / d)
                        if abs(h - layer * d) > 1e-6 or not 0 <= layer < nlayers:
                            continue
                        x, y = (r @ u) % L1, (r @ v) % L2
                        key = (sp, round(x, 4) % round(L1, 4), round(y, 4) % round(L2, 4), layer)
                        atoms[key] = (sp, x, y, layer * d)
    return (L1, L2), list(atoms.values())


def ruo2(ncells=2, x0=-0.25):
    """The RuO2(100) 1 x 2 slab cut at x0 (in units of a), ncells rutile cells thick: cell and atoms."""
    frac = [
        ("Ru", 0, 0, 0),
        ("Ru", 0.5, 0.5, 0.5),
        ("O", U_O, U_O, 0),
        ("O", -U_O, -U_O, 0),
        ("O", 0.5 + U_O, 0.5 - U_O, 0.5),
        ("O", 0.5 - U_O, 0.5 + U_O, 0.5),
    ]
    atoms = []
    for n in range(-1, ncells + 1):
        for rep in range(2):  # 1 x 2 along c
            for sp, x, y, z in frac:
                xx = x % 1 + n
                if not x0 <= xx < ncells + x0:
                    continue
                # slab axes: in-plane (b, 2c) -> (x, y); normal a -> z
                atoms.append((sp, (y % 1) * A_RUO2, ((z % 1) + rep) * C_RUO2, xx * A_RUO2))
    return (A_RUO2, 2 * C_RUO2), atoms


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    cell, at = snte()
    write_poscar(out / "SnTe_110_slab.vasp", "SnTe(110) slab, 7 layers, unstrained (a = 6.32 A)", cell, at)
    cell, at = ruo2()
    write_poscar(
        out / "RuO2_100_slab.vasp", "RuO2(100) 1x2 slab, 4 Ru layers (A B A B from the bottom), unstrained", cell, at
    )
