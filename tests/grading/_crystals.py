"""Crystal builders shared by the structure and vasp tests (real geometries, magnetic orders by construction)."""

from __future__ import annotations

import numpy as np
from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure
from pymatgen.io.vasp.inputs import Poscar

NIO_A = 4.17  # rocksalt NiO, Å
SI_A = 5.431  # diamond Si, Å


def si_conventional() -> Structure:
    return Structure.from_spacegroup("Fd-3m", Lattice.cubic(SI_A), ["Si"], [[0, 0, 0]])


def si_primitive() -> Structure:
    return si_conventional().get_primitive_structure()


def rocksalt_nio() -> Structure:
    """The 8-atom conventional cubic cell."""
    return Structure.from_spacegroup("Fm-3m", Lattice.cubic(NIO_A), ["Ni", "O"], [[0, 0, 0], [0.5, 0.5, 0.5]])


def _afm2_sign(cart: np.ndarray) -> int:
    """AFM-II: Ni moments alternate between successive (111) planes."""
    n = np.rint(cart / (NIO_A / 2)).astype(int)
    return 1 if (int(n.sum()) // 2) % 2 == 0 else -1


def nio_afm2(flip: bool = False) -> Structure:
    """NiO in the 4-atom rhombohedral AFM-II cell (Ni Ni O O), moments ±2 μB on Ni as a magmom property."""
    conv = rocksalt_nio() * (2, 2, 2)
    moments = [(2.0 * _afm2_sign(site.coords) if site.specie.symbol == "Ni" else 0.0) for site in conv]
    # Reduce to the magnetic primitive cell: tag spins as species, reduce, then read the spins back.
    from pymatgen.core.periodic_table import Species

    tagged = Structure(
        conv.lattice,
        [Species(s.specie.symbol, None, spin=int(np.sign(m))) for s, m in zip(conv, moments, strict=True)],
        conv.frac_coords,
    )
    prim = tagged.get_primitive_structure().get_sorted_structure(
        key=lambda s: (s.specie.symbol != "Ni", -s.specie.spin)
    )
    sign = -1.0 if flip else 1.0
    mags = [sign * 2.0 * float(s.specie.spin) for s in prim]
    return Structure(prim.lattice, [s.specie.symbol for s in prim], prim.frac_coords, site_properties={"magmom": mags})


def nio_afm1_conventional() -> Structure:
    """The cubic 8-atom cell with AFM-I order (Ni moments alternate between (001) planes)."""
    conv = rocksalt_nio().get_sorted_structure()
    mags = [(2.0 if abs(s.frac_coords[2]) < 1e-6 else -2.0) if s.specie.symbol == "Ni" else 0.0 for s in conv]
    return conv.copy(site_properties={"magmom": mags})


def bare(structure: Structure) -> Structure:
    """The structure without site properties."""
    return Structure(structure.lattice, structure.species, structure.frac_coords)


def poscar_text(structure: Structure) -> str:
    """VASP 5 POSCAR text (species line included), sites grouped by species."""
    return Poscar(bare(structure)).get_str()


def magmom_line(structure: Structure, flip: bool = False) -> str:
    sign = -1.0 if flip else 1.0
    return " ".join(f"{sign * m:g}" for m in structure.site_properties["magmom"])
