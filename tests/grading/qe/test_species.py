"""qe.species: elements, pseudopotentials, functional families and masses."""

from __future__ import annotations

from cmb.grading.qe import label_element, pseudo_element, pseudo_functional
from tests.grading.qe._cases import case_text
from tests.grading.qe._helpers import SI, grade_input, qe_check, with_system


def test_species_elements_functional_and_masses(tmp_path):
    ok = {"elements": ["Si"], "functional": "pz", "mass_rel_tol": 0.01}
    assert grade_input(tmp_path, SI, qe_check("qe.species", params=ok)).passed
    res = grade_input(tmp_path, SI, qe_check("qe.species", params={"functional": "pbe"}))
    assert not res.passed and "lda pseudopotential, not pbe" in res.message
    pbe = case_text("vdw_d2")
    assert grade_input(tmp_path, pbe, qe_check("qe.species", params={"functional": "PBE"})).passed
    res = grade_input(tmp_path, SI, qe_check("qe.species", reference=True), ["Si", "O"])
    assert not res.passed and "differ" in res.message
    heavy = SI.replace("Si 28.086", "Si 56.0")
    assert not grade_input(tmp_path, heavy, qe_check("qe.species", params={"mass_rel_tol": 0.05})).passed
    zero = case_text("sp_mass_zero")  # pw.x uses the standard weight for a mass <= 0
    assert grade_input(tmp_path, zero, qe_check("qe.species", params={"mass_rel_tol": 0.01})).passed


def test_input_dft_overrides_the_pseudopotential_functional(tmp_path):
    text = with_system("input_dft = 'PBEsol'")
    res = grade_input(tmp_path, text, qe_check("qe.species", params={"functional": "pz"}))
    assert not res.passed and "overrides" in res.message
    assert grade_input(tmp_path, text, qe_check("qe.species", params={"functional": "pbesol"})).passed


def test_pseudopotential_named_for_another_element_is_caught(tmp_path):
    text = SI.replace("Si.pz-vbc.UPF", "O.pbe-n-kjpaw_psl.0.1.UPF")
    res = grade_input(tmp_path, text, qe_check("qe.species", params={"elements": ["Si"]}))
    assert not res.passed and "of O" in res.message


def test_element_and_functional_from_names():
    labels = ("Fe1", "C_h", "Co", "CO", "O1", "Xq", "s")
    assert [label_element(x) for x in labels] == ["Fe", "C", "Co", "Co", "O", None, "S"]
    assert pseudo_element("fe_pbe_v1.5.uspp.F.UPF") == "Fe"
    assert pseudo_element("Si.pz-vbc.UPF") == "Si" and pseudo_element("pseudo_Si.UPF") is None
    assert pseudo_functional("Si.pbesol-n-rrkjus_psl.1.0.0.UPF") == "pbesol"
    assert pseudo_functional("Fe.pbe-spn-kjpaw_psl.0.2.1.UPF") == "pbe"
    assert pseudo_functional("Si.pz-vbc.UPF") == "lda" and pseudo_functional("Si.upf") is None
