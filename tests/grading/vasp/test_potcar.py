"""vasp.potcar: datasets by symbol, in POSCAR species order."""

from __future__ import annotations

from cmb.models import Check
from tests.grading.vasp._helpers import NIO_POSCAR, grade, potcar_check


def test_potcar_spec_in_poscar_order_passes(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "POTCAR.spec": "Ni_pv\nO\n"}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni", "Ni_pv"], "O": ["O"]}), files)
    assert res.passed, res.message
    assert grade(tmp_path, potcar_check(symbols=["Ni_pv", "O"]), files).passed


def test_potcar_in_wrong_order_fails(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "POTCAR.spec": "O\nNi_pv\n"}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni_pv"], "O": ["O"]}), files)
    assert not res.passed and "do not follow the POSCAR species" in res.message


def test_potcar_not_allowed_dataset_fails(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "potcar.json": '["Ni_sv_GW", "O_s"]'}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni_pv"], "O": ["O"]}), files)
    assert not res.passed and "Ni_sv_GW is not an accepted Ni dataset" in res.message


def test_potcar_header_symbols_are_read(tmp_path):
    header = "  PAW_PBE {s} 06Sep2000\n   VRHFIN ={e}:\n   LEXCH  = PE\n   TITEL  = PAW_PBE {s} 06Sep2000\n"
    potcar = header.format(s="Ni_pv", e="Ni") + " End of Dataset\n" + header.format(s="O", e="O") + " End of Dataset\n"
    check = Check(id="pp", type="vasp.potcar", category="software", target={"file": "POTCAR"}, reference="x")
    res = grade(tmp_path, check, {"POSCAR": NIO_POSCAR, "POTCAR": potcar}, x=["Ni_pv", "O"])
    assert res.passed and res.actual == ["Ni_pv", "O"]
    assert not grade(tmp_path, check, {"POSCAR": NIO_POSCAR, "POTCAR": potcar}, x=["Ni", "O"]).passed


def test_potcar_missing_or_garbage_fails(tmp_path):
    res = grade(tmp_path, potcar_check(symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR})
    assert not res.passed and "POTCAR" in res.message
    res = grade(tmp_path, potcar_check(symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR, "POTCAR": "garbage\n"})
    assert not res.passed and "not a POTCAR" in res.message
    res = grade(
        tmp_path, potcar_check("POTCAR.spec", symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR, "POTCAR.spec": "Ni; rm\n"}
    )
    assert not res.passed
