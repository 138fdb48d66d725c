"""Structure and reference input set of soc-anisotropy-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

L1_0 FePt at the experimental lattice constants (a = 3.853 A, c = 3.713 A of the face-centred tetragonal cell),
written in its 2-atom primitive tetragonal cell (a_t = a / sqrt 2 along x and y, c along z; Fe at the origin, Pt
at the body centre) with pymatgen. The reference set follows the force-theorem route to the magnetocrystalline
anisotropy: a collinear spin-polarised SCF that writes CHGCAR (with the d one-centre occupancies, LMAXMIX = 4),
then two non-self-consistent noncollinear runs with spin-orbit coupling (ICHARG = 11) whose magnetisation is put
along x or z by SAXIS; MAE = E(x) - E(z). Writes

  OUTDIR/workspace/POSCAR                 the structure staged for the agent
  OUTDIR/inputs/structure.cif             the same crystal for the grader's structure check
  OUTDIR/inputs/INCAR_collinear, INCAR_x, INCAR_z, KPOINTS, POTCAR.spec
  OUTDIR/values.json                      cell parameters and the k spacing of the reference mesh
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Structure
from pymatgen.io.cif import CifWriter
from pymatgen.io.vasp.inputs import Poscar

A_FCT, C_FCT = 3.853, 3.713

COMMON = """PREC = Accurate
ENCUT = 400
EDIFF = 1E-7
LREAL = .FALSE.
ISMEAR = -5          ! tetrahedron method with Bloechl corrections: accurate band energies, no smearing width
LASPH = .TRUE.
LMAXMIX = 4          ! d one-centre occupancies written to / read from CHGCAR
LORBIT = 11
"""

COLLINEAR = """SYSTEM = FePt L1_0, step 1: collinear spin-polarised SCF
{common}ISPIN = 2
MAGMOM = 3.0 0.4
LCHARG = .TRUE.
"""

NONCOLLINEAR = """SYSTEM = FePt L1_0, step 2: spin-orbit coupling, magnetisation along {axis}
{common}ICHARG = 11          ! non-self-consistent: density and magnetisation from the collinear CHGCAR
LSORBIT = .TRUE.
ISYM = -1
GGA_COMPAT = .FALSE.
SAXIS = {saxis}
MAGMOM = 0 0 3.0  0 0 0.4
LORBMOM = .TRUE.
LCHARG = .FALSE.
"""


def build() -> Structure:
    return Structure(Lattice.tetragonal(A_FCT / math.sqrt(2), C_FCT), ["Fe", "Pt"], [[0, 0, 0], [0.5, 0.5, 0.5]])


def main(out: Path) -> None:
    s = build()
    (out / "workspace").mkdir(parents=True, exist_ok=True)
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    (out / "workspace" / "POSCAR").write_text(Poscar(s, comment="FePt L1_0, primitive tetragonal cell").get_str())
    CifWriter(s).write_file(inputs / "structure.cif")
    (inputs / "INCAR_collinear").write_text(COLLINEAR.format(common=COMMON))
    (inputs / "INCAR_x").write_text(NONCOLLINEAR.format(common=COMMON, axis="x (in plane)", saxis="1 0 0"))
    (inputs / "INCAR_z").write_text(NONCOLLINEAR.format(common=COMMON, axis="z (c axis)", saxis="0 0 1"))
    (inputs / "KPOINTS").write_text("Gamma-centred mesh for all three runs\n0\nGamma\n24 24 18\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Fe_pv\nPt\n")
    recip = np.linalg.norm(np.linalg.inv(s.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {
        "a_tetragonal_angstrom": round(s.lattice.a, 5),
        "c_angstrom": C_FCT,
        "kpoint_spacing_reference_mesh": round(float(max(recip / np.array([24, 24, 18]))), 4),
        "saxis_x": [1.0, 0.0, 0.0],
        "saxis_z": [0.0, 0.0, 1.0],
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
