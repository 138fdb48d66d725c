"""vasp.* on hostile submissions: links, binary files, huge and malformed inputs."""

from __future__ import annotations

from cmb.grading import run_check
from cmb.grading._submission import Submission
from cmb.models import Check
from tests.conftest import make_reference, write_files
from tests.grading.vasp._helpers import (
    NIO_POSCAR,
    SI_POSCAR,
    grade,
    grade_incar,
    incar_check,
    kpoints_check,
    potcar_check,
    resolver,
)


def test_symlinked_potcar_is_reported_not_taken_as_absent(tmp_path):
    library = write_files(tmp_path / "library", {"POTCAR": "TITEL = PAW_PBE Ni_pv 06Sep2000\n"})
    sub = write_files(tmp_path / "sub", {"POSCAR": NIO_POSCAR, "INCAR": "ISMEAR = 0\n"})
    (sub / "POTCAR").symlink_to(library / "POTCAR")
    res = run_check(potcar_check(symbols=["Ni_pv", "O"]), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message
    res = run_check(incar_check("ENCUT", min=300), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message


def test_symlinked_kpoints_is_not_replaced_by_kspacing(tmp_path):
    outside = write_files(tmp_path / "outside", {"KPOINTS": "k\n0\nGamma\n5 5 5\n"})
    sub = write_files(tmp_path / "sub", {"POSCAR": SI_POSCAR, "INCAR": "ISMEAR = 0\n"})
    (sub / "KPOINTS").symlink_to(outside / "KPOINTS")
    res = run_check(kpoints_check(mesh=[5, 5, 5]), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message


def test_huge_incar_is_handled_in_bounded_time(tmp_path):
    text = "NSW = 1 ; " * 400_000 + "\nISMEAR = 0\n"
    res = grade_incar(tmp_path, text, incar_check("ISMEAR", any_of=[0]))
    assert res.passed


def test_incar_in_a_subfolder_reads_its_neighbours(tmp_path):
    check = Check(
        id="i",
        type="vasp.incar",
        category="software",
        target={"file": "relax/INCAR", "setting": "MAGMOM"},
        reference="m",
    )
    files = {"relax/INCAR": "ISPIN = 2\n", "relax/POSCAR": SI_POSCAR}
    assert grade(tmp_path, check, files, m=[1.0, 1.0]).passed


def test_same_value_written_twice_differently_is_not_ambiguous():
    r = resolver("ENCUT = 520\nENCUT = 520.0 eV\nALGO = Fast\nalgo = fast\n")
    assert r.effective("ENCUT").value == 520.0 and r.effective("ALGO").value == "Fast"


def test_wiki_style_incar_with_comments_parses():
    text = (
        "SYSTEM = Rhodium surface calculation\n\n"
        "# start parameters for this run\n"
        "  ISTART =      0    #  job   : 0-new  1- orbitals from WAVECAR\n"
        "  ENCUT  = 300.00 eV # defaults from POTCAR, but wise to include\n"
        "  SIGMA  =    0.05;  ISMEAR =  0 # broad. in eV\n"
        "  EDIFFG = -1E-02   ! stopping-criterion for ionic relaxation\n"
    )
    r = resolver(text)
    assert r.effective("ISTART").value == 0 and r.effective("ENCUT").value == 300.0
    assert r.effective("ISMEAR").value == 0 and r.effective("EDIFFG").value == -0.01


def test_hubbard_u_lists_compare_element_wise(tmp_path):
    check = incar_check("LDAUU", "u", tolerance={"abs": 0.01})
    res = grade(tmp_path, check, {"INCAR": "LDAU = .TRUE.\nLDAUU = 6.0 0.0\n", "POSCAR": SI_POSCAR}, u=[6.0, 0.0])
    assert res.passed, res.message
    res = grade(tmp_path, check, {"INCAR": "LDAU = .TRUE.\nLDAUU = 0 6\n", "POSCAR": SI_POSCAR}, u=[6.0, 0.0])
    assert not res.passed


def test_kpoints_and_incar_both_missing(tmp_path):
    res = grade(tmp_path, kpoints_check(mesh=[5, 5, 5]), {"POSCAR": SI_POSCAR})
    assert not res.passed and "no KPOINTS file" in res.message and "INCAR" in res.message
