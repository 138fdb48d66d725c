"""qe.param parameters, and grader mistakes reported as grader errors."""

from __future__ import annotations

import pytest

from cmb.grading import REGISTRY, GraderConfigError, validate_params
from cmb.grading.qe import parse_pw_input, resolve_setting
from tests.grading.qe._cases import case_text
from tests.grading.qe._helpers import QE_TYPES, SI, grade_input, param, qe_check, with_system


def test_param_bounds_any_of_not_and_explicit(tmp_path):
    text = with_system("ecutrho = 96")
    assert param(tmp_path, text, "system.ecutrho", min=90, max=100).passed
    assert not param(tmp_path, text, "system.ecutrho", max=90).passed
    assert param(tmp_path, text, "system.ecutrho", any_of=[96.0, 120.0]).passed
    assert not param(tmp_path, SI, "system.occupations", not_=["fixed"]).passed
    assert param(tmp_path, SI, "system.ecutwfc", 12.0, explicit=True).passed
    res = param(tmp_path, SI, "system.ecutrho", 48.0, explicit=True)
    assert not res.passed and "not written in the input" in res.message
    assert param(tmp_path, SI, "control.pseudo_dir", explicit=True).passed  # not curated: only explicit


def test_settings_outside_the_table_compare_exactly_as_written(tmp_path):
    text = SI.replace("calculation = 'scf'", "calculation = 'scf', prefix = 'Si8'")
    assert param(tmp_path, text, "control.prefix", any_of=["Si8"], explicit=True).passed
    assert not param(tmp_path, text, "control.prefix", any_of=["si8"], explicit=True).passed
    res = param(tmp_path, SI, "control.prefix", any_of=["Si8"], explicit=True)
    assert not res.passed and "not in the input" in res.message


def test_kpoints_card_without_option_is_tpiba():
    kp = parse_pw_input(case_text("kp_list_bare")).kpoints
    assert kp is not None and kp.kind == "tpiba" and len(kp.points) == 2


def test_float_comparison_uses_the_tolerance_and_reports_a_deviation(tmp_path):
    check = qe_check("qe.param", "electrons.conv_thr", reference=True, tolerance={"rel": 0.5})
    res = grade_input(tmp_path, SI, check, 1.5e-6)
    assert res.passed and res.tolerance == "50% rel"
    assert not grade_input(tmp_path, SI, check, 1e-8).passed


@pytest.mark.parametrize(
    ("setting", "params", "match"),
    [
        ("system.ecut_rho", {"min": 1}, "no variable"),
        ("ecutrho", {"min": 1}, "namelist.variable"),
        ("control.pseudo_dir", {"any_of": ["."]}, "no curated"),
        ("system.starting_magnetization", {"min": 0}, "is an array"),
        ("system.ecutrho(1)", {"min": 0}, "not an array"),
        ("system.celldm(Fe)", {"min": 0}, "per-species"),
        ("system.celldm(7)", {"min": 0}, "bounds"),
        ("system.occupations", {"min": 0}, "numeric"),
        ("system.ecutrho", {}, "give a reference"),
        ("system.ecutrho", {"ratio_to": {"setting": "system.starting_magnetization(1)", "min": 1}}, "scalar"),
    ],
)
def test_grader_mistakes_are_grader_errors(tmp_path, setting, params, match):
    with pytest.raises(GraderConfigError, match=match):
        param(tmp_path, SI, setting, **params)


@pytest.mark.parametrize(
    "check",
    [
        qe_check("qe.param", "system.ecutrho", reference=True),
        qe_check("qe.param", "system.vdw_corr", params={"any_of": ["d3"]}),
        qe_check("qe.kpoints", reference=True),
        qe_check("qe.species", reference=True),
        qe_check("qe.species", params={"functional": "rpa-ish"}),
        qe_check("qe.structure", params={"reference_file": "missing.in"}),
    ],
)
def test_grader_mistakes_surface_whatever_the_submission(tmp_path, check):
    with pytest.raises(GraderConfigError):
        grade_input(tmp_path, "not an input at all", check)


def test_every_qe_type_validates_its_params():
    for name in QE_TYPES:
        assert REGISTRY.get(name).family == "qe"
    with pytest.raises(GraderConfigError):
        validate_params(qe_check("qe.kpoints", params={"min_mesh": [1, 1]}))
    with pytest.raises(GraderConfigError):
        validate_params(qe_check("qe.param", "system.ecutrho", params={"minimum": 1}))


def test_resolve_setting_accepts_qe_spellings():
    assert resolve_setting("SYSTEM.ecutRHO").base == "system.ecutrho"
    assert resolve_setting("&system.starting_magnetization(Fe1)").index == "Fe1"
    assert resolve_setting("system.celldm( 1 )").index == "1"
