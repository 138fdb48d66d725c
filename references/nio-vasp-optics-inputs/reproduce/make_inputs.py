"""Reference input set of nio-vasp-optics-inputs (no VASP run: the task is graded on the inputs).

Usage: python3 make_inputs.py OUTDIR [NBANDS_MIN]

Builds rocksalt NiO at the experimental a = 4.17 A in the 4-atom rhombohedral cell that holds the AFM-II order
(lattice vectors a(1, 1/2, 1/2), a(1/2, 1, 1/2), a(1/2, 1/2, 1); Ni at 0 and 1/2 1/2 1/2, O at 1/4 and 3/4 along
the diagonal), the cell of the ground-state task nio-vasp-afm-u-inputs; checks with pymatgen's StructureMatcher on
spin-decorated species that it carries the same crystal and magnetic order as an independent construction (the
cubic cell doubled in every direction, spins set plane by plane, reduced to its magnetic primitive cell); and
writes INCAR, KPOINTS, POSCAR and POTCAR.spec under OUTDIR/inputs/ plus OUTDIR/values.json (cell, U, the k spacing
of the reference mesh and of the meshes around the bound, and the NBANDS bound passed in from band_count.py).
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
MESH = 12

INCAR = """SYSTEM = NiO AFM-II, PBE+U (Dudarev), independent-particle dielectric function

# electronic structure: a single static run from scratch
PREC = Accurate
ENCUT = 520          ! the ground state's cutoff (1.3 x ENMAX of O)
EDIFF = 1E-7
ALGO = Normal
ISMEAR = 0           ! Gaussian, NiO is an insulator
SIGMA = 0.05
LASPH = .TRUE.       ! non-spherical gradient corrections inside the PAW spheres (3d)
LREAL = .FALSE.
NSW = 0

# magnetism: AFM-II, Ni moments alternate between (111) planes (as in the ground state)
ISPIN = 2
MAGMOM = 2.0 -2.0 0.0 0.0

# DFT+U as in the ground state: Dudarev, U_eff = U - J = 6.2 eV on Ni 3d only
LDAU = .TRUE.
LDAUTYPE = 2
LDAUL = 2 -1
LDAUU = 6.2 0.0
LDAUJ = 0.0 0.0
LMAXMIX = 4          ! d occupancies are mixed (and written to CHGCAR)

# optics: 22 bands per spin are occupied (44 electrons with Ni_pv and O)
LOPTICS = .TRUE.
NBANDS = 66          ! 3 x 22 occupied; band 43 is the first >= 30 eV above the VBM at every k point
NEDOS = 4000
CSHIFT = 0.1
LWAVE = .FALSE.
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
    return Structure(
        prim.lattice,
        [s.specie.symbol for s in prim],
        prim.frac_coords,
        site_properties={"magmom": [2.0 * s.specie.spin for s in prim]},
    )


def spin_decorated(structure: Structure, flip: int = 1) -> Structure:
    signs = [0 if abs(m) <= 0.5 else flip * int(np.sign(m)) for m in structure.site_properties["magmom"]]
    species = [Species(site.specie.symbol, None, spin=s) for site, s in zip(structure, signs, strict=True)]
    return Structure(structure.lattice, species, structure.frac_coords)


def same_crystal_and_order(actual: Structure, expected: Structure) -> bool:
    matcher = StructureMatcher(ltol=0.02, stol=0.05, angle_tol=1.0, scale=False, attempt_supercell=True)
    return matcher.fit(expected, actual) and any(
        matcher.fit(spin_decorated(expected), spin_decorated(actual, flip)) for flip in (1, -1)
    )


def main(out: Path, nbands_min: int | None) -> None:
    ref = reference_cell()
    if not same_crystal_and_order(independent_cell(), ref):
        raise SystemExit("the two constructions differ")
    print("independent construction: the same crystal and collinear magnetic order as the reference cell")
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    plain = Structure(ref.lattice, ref.species, ref.frac_coords)
    (inputs / "POSCAR").write_text(Poscar(plain, comment="NiO AFM-II rhombohedral cell, a(cubic) = 4.17 A").get_str())
    (inputs / "INCAR").write_text(INCAR)
    (inputs / "KPOINTS").write_text(f"Gamma-centred mesh\n0\nGamma\n{MESH} {MESH} {MESH}\n0 0 0\n")
    (inputs / "POTCAR.spec").write_text("Ni_pv\nO\n")
    recip = np.linalg.norm(np.linalg.inv(ref.lattice.matrix).T, axis=1) * 2 * math.pi
    values = {
        "a_cubic_angstrom": A,
        "u_eff_eV": U_EFF,
        "ldauu_eV": [U_EFF, 0.0],
        "ldauj_eV": [0.0, 0.0],
        "ldaul_window": [2, -0.5],
        "kpoint_spacing_reference_mesh": round(float(max(recip / MESH)), 4),
        "kpoint_spacing_by_mesh": {n: round(float(max(recip / n)), 4) for n in (8, 9, 10, 11, 12)},
    }
    if nbands_min is not None:
        values["nbands_min"] = nbands_min
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else None)
