"""Control flow followed statically: loops, jumps, if, include, quit, and what stays unknown."""

from __future__ import annotations

import pytest

from cmb.grading import GraderConfigError, run_check, validate_params
from cmb.grading._submission import Submission
from cmb.grading.lammps import interpret, lookup
from tests.conftest import make_reference, write_files
from tests.grading.lammps._helpers import _script, box, setting_check, typed_check


def test_loop_over_temperatures_is_followed(tmp_path):
    text = (
        "units metal\n" + box() + "variable T index 100 200 300\nlabel loop\n"
        "fix 1 all nvt temp $T $T 0.1\nrun 100\nunfix 1\nnext T\njump SELF loop\n"
    )
    root = write_files(tmp_path, {"in.lmp": text})
    script = interpret(Submission(root), "in.lmp")
    assert script.stop is None and len(script.stages) == 3
    assert [lookup("fix.nvt.temp.0", s.values) for s in script.stages] == ["100", "200", "300"]
    check = setting_check("fix.nvt.temp.0", params={"at": "any"})
    assert _script(tmp_path / "a", text, check, x=200).passed
    assert not _script(tmp_path / "b", text, setting_check("fix.nvt.temp.0", params={"at": "every"}), x=200).passed


def test_endless_loop_fails_clearly(tmp_path):
    res = _script(tmp_path, "label a\nunits metal\njump SELF a\n", setting_check("units"), x="metal")
    assert not res.passed and "control flow not statically evaluated" in res.message


def test_if_with_a_known_condition_takes_one_branch(tmp_path):
    text = 'variable T equal 300\nif "${T} > 200" then "units metal" else "units real"\n' + box() + "run 0\n"
    assert _script(tmp_path, text, setting_check("units"), x="metal").passed


def test_if_with_a_run_time_condition_makes_only_its_settings_unknown(tmp_path):
    text = (
        "units metal\ntimestep 0.001\n" + box() + "variable e equal pe\n"
        'if "${e} < 0" then "timestep 0.002"\nfix 1 all nvt temp 300 300 0.1\nrun 10\n'
    )
    res = _script(tmp_path, text, setting_check("timestep"), x=0.001)
    assert not res.passed and "run time" in res.message
    assert _script(tmp_path / "u", text, setting_check("units"), x="metal").passed
    assert _script(tmp_path / "f", text, typed_check("lammps.fix", params={"style": "nvt"})).passed


def test_run_time_jump_makes_later_changes_unknown_but_keeps_earlier_ones(tmp_path):
    text = (
        "units metal\n" + box() + "fix 1 all nvt temp 300 300 0.1\nlabel again\nrun 10\n"
        'variable p equal press\nif "${p} > 100" then "jump SELF again"\ntimestep 0.002\nrun 10\n'
    )
    assert _script(tmp_path, text, setting_check("units"), x="metal").passed
    res = _script(tmp_path / "t", text, setting_check("timestep"), x=0.002)
    assert not res.passed and "control flow not statically evaluated" in res.message


def test_unevaluable_formula_gives_an_unknown_not_an_exception(tmp_path):
    text = "units metal\n" + box() + "variable t equal random(1,2,3)*0.001\ntimestep ${t}\nrun 10\n"
    res = _script(tmp_path, text, setting_check("timestep"), x=0.001)
    assert not res.passed and "run time" in res.message


def test_unknown_setting_path_is_a_grader_error(tmp_path):
    check = setting_check("temperature")
    write_files(tmp_path, {"in.lmp": "units metal\n"})
    with pytest.raises(GraderConfigError, match="unknown LAMMPS setting"):
        run_check(check, Submission(tmp_path), make_reference(x=1))


def test_setting_without_any_expectation_is_a_grader_error(tmp_path):
    write_files(tmp_path, {"in.lmp": "units metal\n"})
    with pytest.raises(GraderConfigError, match="give a reference"):
        run_check(setting_check("units", reference=None), Submission(tmp_path), make_reference())


def test_missing_script_is_a_failed_check(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    res = run_check(setting_check("units"), Submission(tmp_path), make_reference(x="metal"))
    assert not res.passed and "not found" in res.message


def test_params_reject_unknown_keys():
    with pytest.raises(GraderConfigError):
        validate_params(typed_check("lammps.fix", params={"style": "npt", "tdamp": 100}))
