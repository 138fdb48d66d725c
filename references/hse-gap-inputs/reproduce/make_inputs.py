"""Reference input set of hse-gap-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

Zincblende GaAs at the experimental a = 5.653 A in its 2-atom fcc primitive cell (pymatgen), and an HSE06
self-consistent calculation on a Gamma-centred mesh from which the direct gap at Gamma is read: LHFCALC with the
screening parameter of HSE06 (0.2 1/A) and a quarter of exact exchange, an algorithm that supports Fock exchange
(ALGO = All), Gaussian smearing of 0.01 eV, Ga_d and As PAW datasets. Writes OUTDIR/inputs/{INCAR,KPOINTS,POSCAR,
POTCAR.spec} and OUTDIR/values.json (lattice parameters of the primitive cell, k spacing of the mesh).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from pymatgen.core import Lattice, Structure
from pymatgen.io.vasp.inputs import Poscar

A = 5.653

INCAR = """SYSTEM = GaAs, HSE06 band gap
PREC = Accurate
ENCUT = 350
EDIFF = 1E-6
NELM = 100

# HSE06: PBE correlation, 25 % screened exact exchange, screening length 0.2 1/A
GGA = PE
LHFCALC = .TRUE.
HFSCREEN = 0.2
AEXX = 0.25
ALGO = All            ! conjugate-gradient; Fast/VeryFast do not support Fock exchange
TIME = 0.4
PRECFOCK = Normal

ISMEAR = 0
SIGMA = 0.01
NBANDS = 16
LORBIT = 11
LWAVE = .FALSE.
"""


def main(out: Path) -> None:
    conv = Structure.from_spacegroup("F-43m", Lattice.cubic(A), ["Ga", "As"], [[0, 0, 0], [0.25, 0.25, 0.25]])
    prim = conv.get_primitive_structure().get_sorted_structure(key=lambda site: site.specie.symbol != "Ga")
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    (inputs / "POSCAR").write_text(Poscar(prim, comment="GaAs zincblende, primitive cell, a = 5.653 A").get_str())
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text("Gamma-centred mesh (the gap is direct at Gamma)\n0\nGamma\n8 8 8\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Ga_d\nAs\n")
    recip = np.linalg.norm(np.linalg.inv(prim.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {
        "a_cubic_angstrom": A,
        "a_primitive_angstrom": round(prim.lattice.a, 5),
        "hfscreen_per_angstrom": 0.2,
        "aexx": 0.25,
        "kpoint_spacing_reference_mesh": round(float(max(recip / 8)), 4),
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
