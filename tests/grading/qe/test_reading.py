"""Reading like pw.x: namelist syntax that qe-tools' reader would silently lose."""

from __future__ import annotations

import numpy as np
import pytest

from cmb.grading.qe import eval_infix, parse_pw_input, pw_structure
from tests.grading.qe._cases import BOHR, case_text
from tests.grading.qe._helpers import effective, grade_input, param, qe_check


def test_settings_without_commas_or_before_a_slash_are_read(tmp_path):
    assert effective(case_text("two_same_line"), "system.ecutrho") == 60.0  # 'ecutrho = 60 nbnd = 8'
    assert effective(case_text("slash_after_value"), "system.ecutwfc") == 14.0  # 'ecutwfc = 14.0 /'
    assert effective(case_text("semicolon"), "system.nbnd") == 8
    assert effective(case_text("name_newline_eq"), "system.ecutrho") == 60.0
    assert effective(case_text("dupkey"), "system.ecutwfc") == 14.0  # the last assignment wins


def test_fortran_value_forms(tmp_path):
    assert effective(case_text("log_T"), "control.tprnfor") is True
    assert effective(case_text("log_false_word"), "control.tprnfor") is False
    assert effective(case_text("real_q"), "system.ecutrho") == 60.0
    assert effective(case_text("conv_thr"), "electrons.conv_thr") == pytest.approx(1e-9)
    assert parse_pw_input(case_text("str_doubled_quote")).values["control.title"] == "it's"
    assert parse_pw_input(case_text("slash_in_string")).values["control.title"] == "a/b"
    values = parse_pw_input(case_text("nspin2_mag_repeat")).values
    assert values["system.starting_magnetization(1)"] == values["system.starting_magnetization(2)"] == 0.5


def test_unknown_variable_stops_pw_x_and_its_intended_setting_keeps_the_default(tmp_path):
    text = case_text("unknown_variable")  # 'ecut_rho = 60'
    res = grade_input(tmp_path, text, qe_check("qe.valid"))
    assert not res.passed and "'ecut_rho' is not a variable of namelist &system" in res.message
    assert not param(tmp_path, text, "system.ecutrho", 60.0).passed


def test_unquoted_string_and_wrong_types_are_problems(tmp_path):
    for name, words in (
        ("str_unquoted", "must be quoted"),
        ("nspin1_real", "not an integer"),
        ("log_yes", "not a logical"),
        ("real_quoted", "quoted string"),
        ("hash_comment", "'#'"),
    ):
        res = grade_input(tmp_path, case_text(name), qe_check("qe.valid"))
        assert not res.passed and words in res.message, (name, res.message)


def test_lowercase_card_name_is_not_a_card_for_pw_x(tmp_path):
    res = grade_input(tmp_path, case_text("sp_lower_card"), qe_check("qe.valid"))
    assert not res.passed and "ATOMIC_SPECIES must be present before ATOMIC_POSITIONS" in res.message
    res = grade_input(tmp_path, case_text("sp_lower_card"), qe_check("qe.species", params={"elements": ["Si"]}))
    assert not res.passed


def test_namelists_out_of_order_or_missing(tmp_path):
    res = grade_input(tmp_path, case_text("swapped_namelists"), qe_check("qe.valid"))
    assert not res.passed and "comes too early" in res.message
    res = grade_input(tmp_path, case_text("relax_without_ions"), qe_check("qe.valid"))
    assert not res.passed and "&IONS is missing" in res.message
    res = grade_input(tmp_path, case_text("cell_in_scf"), qe_check("qe.valid", params={"strict": True}))
    assert not res.passed and "&CELL is not read" in res.message
    assert effective(case_text("cell_in_scf"), "cell.cell_dynamics") == "none"


def test_positions_with_arithmetic_as_pw_x_evaluates_them():
    assert eval_infix("1/4") == 0.25 and eval_infix("2*(1/8)") == 0.25 and eval_infix("2^-2") == 0.25
    assert eval_infix("-2^2") == -4.0 and eval_infix("1-3/4") == 0.25 and eval_infix("1.0d-1") == 0.1
    for bad in ("abc", "1/0", "__import__('os')", "(1", "1)", "10^400", "(-8)^(1/3)", "(" * 60 + "1" + ")" * 60):
        assert eval_infix(bad) is None, bad
    structure = pw_structure(parse_pw_input(case_text("pos_expr")))
    assert np.allclose(structure.cart_coords[1], np.array([0.25, 0.25, 0.25]) * 10.26 * BOHR)
