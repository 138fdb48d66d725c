"""Reference input set of nio-vasp-afm-u-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR

Builds rocksalt NiO at the experimental a = 4.17 A in the 4-atom rhombohedral cell that holds the AFM-II order
(lattice vectors a(1, 1/2, 1/2), a(1/2, 1, 1/2), a(1/2, 1/2, 1): the rocksalt cell doubled along [111]; Ni at 0 and
1/2 1/2 1/2, O at 1/4 and 3/4 along the diagonal), checks that it is the same crystal and magnetic order as an
independent construction (the cubic cell doubled in every direction, spins set plane by plane, reduced to its
magnetic primitive cell) with pymatgen's StructureMatcher on spin-decorated species and tight tolerances, and
writes INCAR, KPOINTS, POSCAR and POTCAR.spec under OUTDIR/inputs/ plus OUTDIR/values.json (cell parameters and
the k-point spacing of the reference mesh).
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

A = 4.17
U_EFF = 6.2

INCAR = """SYSTEM = NiO AFM-II, PBE+U (Dudarev), full relaxation

# electronic structure
PREC = Accurate
ENCUT = 520          ! 1.3 x the largest ENMAX (O, 400 eV): the cell changes shape and volume
EDIFF = 1E-6
ISMEAR = 0           ! Gaussian, NiO is an insulator
SIGMA = 0.05
LASPH = .TRUE.       ! non-spherical gradient corrections inside the PAW spheres (3d)
LREAL = .FALSE.

# magnetism: AFM-II, Ni moments alternate between (111) planes
ISPIN = 2
MAGMOM = 2.0 -2.0 0.0 0.0

# DFT+U, Dudarev: U_eff = U - J on Ni 3d only
LDAU = .TRUE.
LDAUTYPE = 2
LDAUL = 2 -1
LDAUU = 6.2 0.0
LDAUJ = 0.0 0.0
LMAXMIX = 4          ! d occupancies are mixed and written to CHGCAR
LORBIT = 11

# relaxation of ions, cell shape and volume
IBRION = 2
ISIF = 3
NSW = 60
EDIFFG = -0.01
"""


def reference_cell() -> Structure:
    lattice = Lattice(np.array([[1, 0.5, 0.5], [0.5, 1, 0.5], [0.5, 0.5, 1]]) * A)
    return Structure(
        lattice,
        ["Ni", "Ni", "O", "O"],
        [[0, 0, 0], [0.5, 0.5, 0.5], [0.25, 0.25, 0.25], [0.75, 0.75, 0.75]],
        site_properties={"magmom": [2.0, -2.0, 0.0, 0.0]},
    )


def independent_cell() -> Structure:
    conv = Structure.from_spacegroup("Fm-3m", Lattice.cubic(A), ["Ni", "O"], [[0, 0, 0], [0.5, 0.5, 0.5]]) * 2
    tagged = []
    for site in conv:
        n = int(np.rint(site.coords / (A / 2)).sum())
        spin = (1 if (n // 2) % 2 == 0 else -1) if site.specie.symbol == "Ni" else 0
        tagged.append(Species(site.specie.symbol, None, spin=spin))
    prim = Structure(conv.lattice, tagged, conv.frac_coords).get_primitive_structure()
    return Structure(prim.lattice, [s.specie.symbol for s in prim], prim.frac_coords,
                     site_properties={"magmom": [2.0 * s.specie.spin for s in prim]})


def spin_decorated(structure: Structure, flip: int = 1) -> Structure:
    """Each site's species tagged with the sign of its moment (moments up to 0.5 muB count as none)."""
    signs = [0 if abs(m) <= 0.5 else flip * int(np.sign(m)) for m in structure.site_properties["magmom"]]
    species = [Species(site.specie.symbol, None, spin=s) for site, s in zip(structure, signs, strict=True)]
    return Structure(structure.lattice, species, structure.frac_coords)


def same_crystal_and_order(actual: Structure, expected: Structure) -> str | None:
    """None when both are one crystal with one collinear spin pattern (a global flip allowed), else why not."""
    vpa_actual, vpa_expected = actual.volume / len(actual), expected.volume / len(expected)
    if abs(vpa_actual - vpa_expected) > 0.01 * vpa_expected:
        return f"volume per atom {vpa_actual:.4g} vs {vpa_expected:.4g} A^3"
    matcher = StructureMatcher(ltol=0.02, stol=0.05, angle_tol=1.0, scale=False, attempt_supercell=True)
    if not matcher.fit(expected, actual):
        return "not the same crystal"
    if not any(matcher.fit(spin_decorated(expected), spin_decorated(actual, flip)) for flip in (1, -1)):
        return "the same crystal but another magnetic order"
    return None


def main(out: Path) -> None:
    ref = reference_cell()
    problem = same_crystal_and_order(independent_cell(), ref)
    if problem is not None:
        raise SystemExit(f"the two constructions differ: {problem}")
    print("independent construction: the same crystal and collinear magnetic order as the reference cell")
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    plain = Structure(ref.lattice, ref.species, ref.frac_coords)
    (inputs / "POSCAR").write_text(Poscar(plain, comment="NiO AFM-II rhombohedral cell, a(cubic) = 4.17 A").get_str())
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text("Gamma-centred mesh\n0\nGamma\n8 8 8\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Ni_pv\nO\n")
    recip = np.linalg.norm(np.linalg.inv(ref.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {
        "a_cubic_angstrom": A,
        "a_rhombohedral_angstrom": round(ref.lattice.a, 5),
        "alpha_rhombohedral_deg": round(ref.lattice.alpha, 4),
        "kpoint_spacing_reference_mesh": round(float(max(recip / 8)), 4),
        "u_eff_eV": U_EFF,
        "ldauu_eV": [U_EFF, 0.0],
        "ldauj_eV": [0.0, 0.0],
        "ldaul_window": [2, -0.5],
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
