"""Reference input set of optics-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

Diamond Si at a = 5.431 A in its 2-atom primitive cell (pymatgen) and a single VASP run that computes the
frequency-dependent dielectric function in the independent-particle approximation (LOPTICS): enough empty bands
for every transition below 15 eV (the bound comes from band_count.py, a pw.x band structure), a fine energy grid
(NEDOS), a small complex shift, Gaussian smearing of 0.01 eV and a dense Gamma-centred mesh. Writes
OUTDIR/inputs/{INCAR,KPOINTS,POSCAR,POTCAR.spec} and OUTDIR/values.json (lattice, k spacing of the mesh).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Structure
from pymatgen.io.vasp.inputs import Poscar

A = 5.431

INCAR = """SYSTEM = Si, independent-particle dielectric function
PREC = Accurate
ENCUT = 300
EDIFF = 1E-8
ALGO = Normal
ISMEAR = 0
SIGMA = 0.01

LOPTICS = .TRUE.
NBANDS = 32           ! 4 occupied; band 15 and above lie >= 15 eV above the VBM at every k
NEDOS = 4000
CSHIFT = 0.1
LWAVE = .FALSE.
"""


def main(out: Path) -> None:
    conv = Structure.from_spacegroup("Fd-3m", Lattice.cubic(A), ["Si"], [[0, 0, 0]])
    prim = conv.get_primitive_structure()
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    (inputs / "POSCAR").write_text(Poscar(prim, comment="Si diamond, primitive cell, a = 5.431 A").get_str())
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text("Gamma-centred mesh\n0\nGamma\n16 16 16\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Si\n")
    recip = np.linalg.norm(np.linalg.inv(prim.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {"a_cubic_angstrom": A, "kpoint_spacing_reference_mesh": round(float(max(recip / 16)), 4)}
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
