"""Reference input set of crn-ldau-vasp-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

Builds rock-salt CrN at a0 = 4.15 A in the 8-atom orthorhombic cell that holds the AFM-[110]2 order (a = sqrt2 a0
along [110], b = a0/sqrt2 along [-110], c = a0 along [001]; Cr on four successive (110) planes with spins up, up,
down, down), checks with pymatgen's StructureMatcher on spin-decorated species (as tight as the grader's
comparison) that it is the same crystal and magnetic order as an
independent construction (a 4x4x1 block of the cube decorated plane by plane and reduced to its magnetic primitive
cell), that the single-layer orders AFM-[001]1 and AFM-[110]1 and the ferromagnet are *not* equivalent to it,
and writes INCAR, KPOINTS, POSCAR and POTCAR.spec under OUTDIR/inputs/ plus OUTDIR/values.json.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from pymatgen.analysis.structure_matcher import StructureMatcher
from pymatgen.core import Lattice, Species, Structure
from pymatgen.io.vasp.inputs import Poscar

A0 = 4.15
U_EFF = 3.0

INCAR = """SYSTEM = CrN AFM-[110]2, PBE+U (Dudarev), full relaxation

# electronic structure
PREC = Accurate
ENCUT = 520          ! 1.3 x the largest ENMAX (N, 400 eV): the cell changes shape and volume
EDIFF = 1E-6
ISMEAR = 0           ! Gaussian; AFM CrN is at most a narrow-gap semiconductor
SIGMA = 0.05
LASPH = .TRUE.       ! non-spherical gradient corrections inside the PAW spheres (3d, +U)
LREAL = .FALSE.

# magnetism: AFM-[110]2, Cr moments up, up, down, down on successive (110) planes
ISPIN = 2
MAGMOM = 3.0 3.0 -3.0 -3.0 0.0 0.0 0.0 0.0

# DFT+U, Dudarev: U_eff = U - J on Cr 3d only
LDAU = .TRUE.
LDAUTYPE = 2
LDAUL = 2 -1
LDAUU = 3.0 0.0
LDAUJ = 0.0 0.0
LMAXMIX = 4          ! d occupancies are mixed and written to CHGCAR
LORBIT = 11

# relaxation of ions, cell shape and volume
IBRION = 2
ISIF = 3
NSW = 60
EDIFFG = -0.01
"""

CR = [[0.0, 0.0, 0.0], [0.25, 0.5, 0.5], [0.5, 0.0, 0.0], [0.75, 0.5, 0.5]]  # planes n = 0, 1, 2, 3
N = [[0.25, 0.5, 0.0], [0.0, 0.0, 0.5], [0.5, 0.0, 0.5], [0.75, 0.5, 0.0]]


def reference_cell(spins: list[float] = (3.0, 3.0, -3.0, -3.0)) -> Structure:
    lattice = Lattice.orthorhombic(math.sqrt(2) * A0, A0 / math.sqrt(2), A0)
    return Structure(lattice, ["Cr"] * 4 + ["N"] * 4, CR + N, site_properties={"magmom": [*spins, 0, 0, 0, 0]})


def decorated_cube(rule) -> Structure:
    """A 4x4x1 block of the rock-salt cube, Cr spins set by rule(n) of the (110) plane index, reduced."""
    cube = Structure.from_spacegroup("Fm-3m", Lattice.cubic(A0), ["Cr", "N"], [[0, 0, 0], [0.5, 0.5, 0.5]])
    block = cube * (4, 4, 1)
    tagged = []
    for site in block:
        spin = rule(site.coords) if site.specie.symbol == "Cr" else 0
        tagged.append(Species(site.specie.symbol, None, spin=spin))
    prim = Structure(block.lattice, tagged, block.frac_coords).get_primitive_structure()
    return Structure(prim.lattice, [s.specie.symbol for s in prim], prim.frac_coords,
                     site_properties={"magmom": [3.0 * s.specie.spin for s in prim]})


def plane(coords) -> int:
    return int(np.rint(2 * (coords[0] + coords[1]) / A0))


def spin_decorated(structure: Structure, flip: int = 1) -> Structure:
    """The structure with each site's species carrying the sign of its moment (|m| <= 0.5 counts as none)."""
    signs = [0 if abs(m) <= 0.5 else flip * int(np.sign(m)) for m in structure.site_properties["magmom"]]
    species = [Species(site.specie.symbol, None, spin=s) for site, s in zip(structure, signs, strict=True)]
    return Structure(structure.lattice, species, structure.frac_coords)


def same_crystal_and_order(actual: Structure, expected: Structure) -> str | None:
    """None when both are one crystal with one collinear spin pattern (a global flip allowed), else why not."""
    matcher = StructureMatcher(ltol=0.02, stol=0.05, angle_tol=1.0, scale=False, attempt_supercell=True)
    plain = [Structure(s.lattice, [x.specie.symbol for x in s], s.frac_coords) for s in (expected, actual)]
    if not matcher.fit(*plain):
        return "not the same crystal"
    if not any(matcher.fit(spin_decorated(expected), spin_decorated(actual, flip)) for flip in (1, -1)):
        return "the same crystal but another magnetic order"
    return None


def main(out: Path) -> None:
    ref = reference_cell()
    double = decorated_cube(lambda r: 1 if plane(r) % 4 in (0, 1) else -1)
    problem = same_crystal_and_order(double, ref)
    if problem is not None:
        raise SystemExit(f"the two constructions differ: {problem}")
    print("independent construction: the same crystal and collinear magnetic order as the reference cell")
    others = {
        "AFM-[110]1": decorated_cube(lambda r: 1 if plane(r) % 2 == 0 else -1),
        "AFM-[001]1": decorated_cube(lambda r: 1 if int(np.rint(2 * r[2] / A0)) % 2 == 0 else -1),
        "FM": decorated_cube(lambda r: 1),
    }
    for name, other in others.items():
        verdict = same_crystal_and_order(other, ref)
        if verdict is None:
            raise SystemExit(f"{name} compares equal to AFM-[110]2")
        print(f"{name} ({len(other)} atoms) differs, as it must: {verdict}")
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    plain = Structure(ref.lattice, ref.species, ref.frac_coords)
    (inputs / "POSCAR").write_text(Poscar(plain, comment="CrN AFM-[110]2 orthorhombic cell, a0 = 4.15 A").get_str())
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text("Gamma-centred mesh\n0\nGamma\n4 8 6\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Cr_pv\nN\n")
    recip = np.linalg.norm(np.linalg.inv(ref.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {
        "a0_angstrom": A0,
        "a_orthorhombic_angstrom": round(ref.lattice.a, 5),
        "b_orthorhombic_angstrom": round(ref.lattice.b, 5),
        "c_orthorhombic_angstrom": round(ref.lattice.c, 5),
        "kpoint_spacing_reference_mesh": round(float(max(recip / np.array([4, 8, 6]))), 4),
        "u_eff_eV": U_EFF,
        "ldauu_eV": [U_EFF, 0.0],
        "ldauj_eV": [0.0, 0.0],
        "ldaul_window": [2, -0.5],
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
