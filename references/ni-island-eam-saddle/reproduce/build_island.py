"""Build the staged structures of the Ni-island study: a Ni(111) slab with a compact seven-atom island.

The slab is 8 x 8 surface cells by four (111) layers of fcc Ni (a = 3.52 A, the lattice constant both potentials
are fitted to) with 10 A of vacuum below and above it, the cell of ASE's fcc111(orthogonal=False). The island is a
heptamer (a centre atom and its six neighbours) one layer spacing above the top layer:
  initial.data  every island atom on an fcc hollow (the site of the next layer of the ABC stacking);
  final.data    the same island moved rigidly by (a1 + a2)/3 of the 1 x 1 cell, every atom on an hcp hollow.
Neither is relaxed. LAMMPS data files (atom_style atomic, one type, the mass of Ni), triclinic box.

Usage: build_island.py OUTDIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

A = 3.52  # A, fcc lattice constant
NX = NY = 8  # surface cells
LAYERS = 4
VACUUM = 10.0  # A, below and above the slab
MASS = 58.69  # amu

D = A / np.sqrt(2)  # nearest-neighbour distance, the 1 x 1 surface cell edge
H = A / np.sqrt(3)  # (111) layer spacing
B1 = np.array([D, 0.0])
B2 = np.array([D / 2, D * np.sqrt(3) / 2])
SHIFT = (B1 + B2) / 3  # in-plane offset of each successive layer (ABC stacking)


def slab() -> np.ndarray:
    rows = []
    for k in range(LAYERS):
        for j in range(NY):
            for i in range(NX):
                xy = i * B1 + j * B2 + k * SHIFT
                rows.append([*xy, VACUUM + k * H])
    return np.array(rows)


def island(site_offset: np.ndarray) -> np.ndarray:
    """A heptamer centred near the middle of the cell, `site_offset` from a lattice point of layer 0."""
    centre = (NX // 2) * B1 + (NY // 2) * B2 + site_offset
    ring = [np.zeros(2), B1, -B1, B2, -B2, B1 - B2, B2 - B1]
    z = VACUUM + LAYERS * H
    return np.array([[*(centre + r), z] for r in ring])


def cell() -> tuple[float, float, float, float]:
    lx, xy = NX * D, NY * B2[0]
    ly = NY * B2[1]
    lz = (LAYERS - 1) * H + 2 * VACUUM
    return lx, ly, lz, xy


def wrap(pos: np.ndarray) -> np.ndarray:
    lx, ly, _, xy = cell()
    out = pos.copy()
    fy = out[:, 1] / ly
    out[:, 0] -= np.floor(fy) * xy
    out[:, 1] -= np.floor(fy) * ly
    fx = (out[:, 0] - out[:, 1] / ly * xy) / lx
    out[:, 0] -= np.floor(fx) * lx
    return out


def data_file(pos: np.ndarray, title: str) -> str:
    lx, ly, lz, xy = cell()
    lines = [
        f"# {title}",
        "",
        f"{len(pos)} atoms",
        "1 atom types",
        "",
        f"0.0 {lx:.10f} xlo xhi",
        f"0.0 {ly:.10f} ylo yhi",
        f"0.0 {lz:.10f} zlo zhi",
        f"{xy:.10f} 0.0 0.0 xy xz yz",
        "",
        "Masses",
        "",
        f"1 {MASS}",
        "",
        "Atoms # atomic",
        "",
    ]
    lines += [f"{n} 1 {x:.10f} {y:.10f} {z:.10f}" for n, (x, y, z) in enumerate(wrap(pos), start=1)]
    return "\n".join(lines) + "\n"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    base = slab()
    fcc, hcp = island(1 * SHIFT), island(2 * SHIFT)  # the xy of layer 1 (fcc hollow) and of layer 2 (hcp hollow)
    (out / "initial.data").write_text(data_file(np.vstack([base, fcc]), "Ni(111) 8x8x4 slab, heptamer on fcc hollows"))
    (out / "final.data").write_text(data_file(np.vstack([base, hcp]), "Ni(111) 8x8x4 slab, heptamer on hcp hollows"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
