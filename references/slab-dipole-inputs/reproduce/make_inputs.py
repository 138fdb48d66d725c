"""Structure and reference input set of slab-dipole-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

CO adsorbed upright on the atop site of one side of a four-layer Pt(111) slab, 2x2 surface cell, built with ASE
at the PBE lattice constant of Pt (3.97 A; a slab should use the functional's own bulk lattice constant) with
Pt-C 1.85 A and C-O 1.15 A, and written with pymatgen. The cell is 25 A high with the slab at its bottom (lowest Pt
layer 1 A above z = 0), as slabs are often set up: the molecule sits on one side only, so the slab carries a
dipole normal to the surface. Writes:

  OUTDIR/workspace/POSCAR       the structure staged for the agent
  OUTDIR/inputs/structure.cif   the same crystal for the grader's structure check
  OUTDIR/inputs/{INCAR,KPOINTS,POTCAR.spec}   the reference input set, DIPOL at the centre of mass
  OUTDIR/values.json            centre of mass (fractional), cell height, and the window of dipole-sheet positions
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from ase.build import add_adsorbate, fcc111
from pymatgen.core import Structure
from pymatgen.io.ase import AseAtomsAdaptor
from pymatgen.io.cif import CifWriter
from pymatgen.io.vasp.inputs import Poscar

A_PT = 3.97
C_HEIGHT = 25.0
BOTTOM = 1.0


def build() -> Structure:
    slab = fcc111("Pt", size=(2, 2, 4), a=A_PT, vacuum=None, orthogonal=False)
    add_adsorbate(slab, "C", 1.85, "ontop")
    add_adsorbate(slab, "O", 1.85 + 1.15, "ontop")
    pos = slab.get_positions()
    pos[:, 2] += BOTTOM - pos[:, 2].min()
    slab.set_positions(pos)
    cell = slab.get_cell().array.copy()
    cell[2] = [0.0, 0.0, C_HEIGHT]
    slab.set_cell(cell)
    slab.wrap()
    structure = AseAtomsAdaptor.get_structure(slab)
    order = {"Pt": 0, "C": 1, "O": 2}
    return structure.get_sorted_structure(key=lambda s: (order[s.specie.symbol], s.coords[2]))


INCAR = """SYSTEM = CO on Pt(111), 2x2, 4 layers: relaxation with dipole correction
PREC = Accurate
ENCUT = 450
EDIFF = 1E-6
ALGO = Fast
LREAL = Auto
ISMEAR = 1
SIGMA = 0.1
ISPIN = 1
IBRION = 2
ISIF = 2
NSW = 100
EDIFFG = -0.02
LDIPOL = .TRUE.
IDIPOL = 3
DIPOL = 0.5 0.5 {zc:.4f}
"""


def main(out: Path) -> None:
    s = build()
    masses = np.array([site.specie.atomic_mass for site in s], dtype=float)
    com = (masses[:, None] * s.frac_coords).sum(axis=0) / masses.sum()
    z = s.cart_coords[:, 2]
    c = s.lattice.c
    (out / "workspace").mkdir(parents=True, exist_ok=True)
    (out / "inputs").mkdir(parents=True, exist_ok=True)
    (out / "workspace" / "POSCAR").write_text(
        Poscar(s, comment="CO/Pt(111) 2x2, 4 Pt layers, CO atop on the upper side").get_str())
    CifWriter(s).write_file(out / "inputs" / "structure.cif")
    (out / "inputs" / "INCAR").write_text(INCAR.format(zc=com[2]))
    recip = np.linalg.norm(np.linalg.inv(s.lattice.matrix).T, axis=1) * 2 * math.pi
    (out / "inputs" / "KPOINTS").write_text("Gamma-centred, one point along the surface normal\n0\nGamma\n6 6 1\n0 0 0\n")
    (out / "inputs" / "POTCAR.spec").write_text("Pt\nC\nO\n")
    # The dipole sheet sits at DIPOL_z + 1/2 (mod 1); it must lie in the vacuum, 1.5 A or more from any atom.
    margin = 1.5 / c
    lo, hi = z.max() / c + margin - 0.5, z.min() / c + 0.5 - margin
    values = {
        "com_frac": [round(float(x), 4) for x in com],
        "dipol_window": [0.5, 0.5, round(float(com[2]), 4)],
        "cell_height_angstrom": round(c, 4),
        "dipol_z_allowed_range": [round(lo, 4), round(hi, 4)],
        "reciprocal_2pi_per_angstrom": [round(float(b), 4) for b in recip],
    }
    print(f"{len(s)} atoms, slab z {z.min():.3f}..{z.max():.3f} A of c = {c:.2f} A; centre of mass {com}")
    print(f"DIPOL_z keeps the dipole sheet 1.5 A from every atom for {lo:.3f} <= DIPOL_z <= {hi:.3f};"
          f" the grader's window (relative tolerance 1 on {com[2]:.4f}) is 0 .. {2 * com[2]:.4f}")
    if not (lo <= 0.0 and 2 * com[2] <= hi):
        raise SystemExit("the grader's DIPOL window is not inside the physically acceptable range")
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
