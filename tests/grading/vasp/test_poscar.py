"""vasp.poscar: the crystal with the magnetic order of the effective MAGMOM."""

from __future__ import annotations

from typing import Any

from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure

from cmb.models import Check
from tests.grading._crystals import NIO_A, magmom_line, nio_afm2, poscar_text
from tests.grading.vasp._helpers import SI_POSCAR, grade


def nio_files(incar: str) -> dict[str, str]:
    return {"POSCAR": poscar_text(nio_afm2()), "INCAR": incar}


NIO_REF = {"POSCAR": poscar_text(nio_afm2()), "INCAR": f"ISPIN = 2\nMAGMOM = {magmom_line(nio_afm2())}\n"}


def poscar_check(**params: Any) -> Check:
    params.setdefault("reference_file", "POSCAR")
    params.setdefault("reference_incar", "INCAR")
    return Check(id="p", type="vasp.poscar", category="scientific", target={"file": "POSCAR"}, params=params)


def test_nio_afm2_cell_with_ferromagnetic_magmom_fails(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 2*5 2*0.6\n"), NIO_REF)
    assert not res.passed and "magnetic order differs" in res.message
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 2*2 2*0\n"), NIO_REF)
    assert not res.passed and "Ni: 2 up / 0 down" in res.message


def test_nio_afm2_with_afm_magmom_passes_and_flipped_too(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 5 -5 0 0\nLDAU = .TRUE.\n"), NIO_REF)
    assert res.passed, res.message
    assert "MAGMOM from INCAR line 2" in res.message  # where the moments come from, in words
    assert grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = -5 5 2*0\n"), NIO_REF).passed


def test_afm_magmom_without_ispin_is_not_spin_polarised(tmp_path):
    """ISPIN defaults to 1: MAGMOM is then ignored and there is no magnetic order at all."""
    res = grade(tmp_path, poscar_check(), nio_files("MAGMOM = 5 -5 0 0\n"), NIO_REF)
    assert not res.passed and "ISPIN = 1" in res.message


def test_default_magmom_is_ferromagnetic(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\n"), NIO_REF)
    assert not res.passed and "magnetic order differs" in res.message


def test_rocksalt_primitive_cell_cannot_hold_afm2(tmp_path):
    prim = Structure.from_spacegroup("Fm-3m", Lattice.cubic(NIO_A), ["Ni", "O"], [[0, 0, 0], [0.5] * 3])
    files = {"POSCAR": poscar_text(prim.get_primitive_structure()), "INCAR": "ISPIN = 2\nMAGMOM = 5 0\n"}
    res = grade(tmp_path, poscar_check(), files, NIO_REF)
    assert not res.passed and "cannot hold the reference order" in res.message


def test_poscar_wrong_structure_fails_before_magnetism(tmp_path):
    s = nio_afm2()
    s.scale_lattice(s.volume * 1.05)
    files = {"POSCAR": poscar_text(s), "INCAR": "ISPIN = 2\nMAGMOM = 5 -5 0 0\n"}
    res = grade(tmp_path, poscar_check(), files, NIO_REF)
    assert not res.passed and "volume per atom" in res.message


def test_poscar_non_magnetic_reference_needs_no_incar(tmp_path):
    check = poscar_check(reference_incar=None)
    assert grade(tmp_path, check, {"POSCAR": SI_POSCAR}, {"POSCAR": SI_POSCAR}).passed
