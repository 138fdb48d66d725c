"""Reference input set of graphite-vasp-relax-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

AB (Bernal) graphite, space group P6_3/mmc with carbon on Wyckoff sites 2b and 2c, at the measured a = 2.464 A
and c = 6.711 A (pymatgen), and a PBE-D3 relaxation of cell shape, volume and ions: IVDW = 11 (zero-damping D3),
ISIF = 3, conjugate-gradient ionic steps, ENCUT = 1.3 x ENMAX of the C dataset (400 eV) against Pulay stress,
Gaussian smearing of 0.05 eV for the semimetal, a Gamma-centred 12x12x4 mesh (spacing 0.245 1/A, 2 pi included).
Writes OUTDIR/inputs/{INCAR,KPOINTS,POSCAR,POTCAR.spec} and OUTDIR/values.json.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Structure
from pymatgen.io.vasp.inputs import Poscar

A, C = 2.464, 6.711
ENMAX_C = 400.0  # PAW_PBE C 08Apr2002
MESH = (12, 12, 4)

INCAR = """SYSTEM = AB graphite, PBE-D3 cell relaxation
PREC = Accurate
ENCUT = 520
EDIFF = 1E-6
NELM = 100
LREAL = .FALSE.

GGA = PE
IVDW = 11

IBRION = 2
ISIF = 3
NSW = 100
EDIFFG = -0.005

ISMEAR = 0
SIGMA = 0.05
LWAVE = .FALSE.
LCHARG = .FALSE.
"""


def main(out: Path) -> None:
    """Write the reference inputs and values.json."""
    graphite = Structure.from_spacegroup(
        "P6_3/mmc", Lattice.hexagonal(A, C), ["C", "C"], [[0, 0, 0.25], [1 / 3, 2 / 3, 0.25]]
    )
    assert len(graphite) == 4
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    Poscar(graphite, comment="AB graphite, a = 2.464 A, c = 6.711 A").write_file(inputs / "POSCAR")
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text(f"Gamma-centred mesh\n0\nGamma\n{MESH[0]} {MESH[1]} {MESH[2]}\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("C\n")
    recip = np.linalg.norm(np.linalg.inv(graphite.lattice.matrix).T, axis=1) * 2 * math.pi
    spacing = max(b / n for b, n in zip(recip, MESH, strict=True))
    values = {
        "lattice_a_angstrom": A,
        "lattice_c_angstrom": C,
        "encut_min_ev": 1.3 * ENMAX_C,
        "kpoint_spacing_reference_mesh": round(float(spacing), 4),
    }
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps(values, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
