"""Traps of LAMMPS inputs the interpreter must see: units and timesteps, pair_coeff elements, damping in steps."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.grading.lammps._helpers import NPT_SCRIPT, SW_SCRIPT, _script, box, grade_files, setting_check, typed_check


def test_script_without_timestep_under_metal_units_is_graded_as_0p001_ps(tmp_path):
    res = _script(tmp_path, NPT_SCRIPT, setting_check("timestep", tolerance={"rel": 1e-6}), x=0.001)
    assert res.passed, res.message
    assert res.actual == 0.001


def test_timestep_1_under_metal_units_is_a_fs_ps_slip_and_fails(tmp_path):
    text = NPT_SCRIPT.replace("velocity", "timestep 1.0\nvelocity")
    res = _script(tmp_path, text, setting_check("timestep", reference=None, params={"min": 0.0005, "max": 0.002}))
    assert not res.passed
    assert res.actual == 1.0 and "outside" in res.message


def test_timestep_before_units_is_reset_by_units(tmp_path):
    """LAMMPS resets the timestep when `units` comes after `timestep` (it warns "Changing timestep")."""
    text = "timestep 0.002\n" + NPT_SCRIPT
    res = _script(tmp_path, text, setting_check("timestep", tolerance={"rel": 1e-6}), x=0.001)
    assert res.passed, res.message


def test_sw_pair_coeff_with_two_elements_for_six_types_fails(tmp_path):
    text = SW_SCRIPT.format(n=6, file="Si.sw", elements="Si Si")
    check = typed_check("lammps.pair_coeff", reference="x", params={"allowed_files": ["Si.sw"]})
    res = _script(tmp_path, text, check, x=["Si"] * 6)
    assert not res.passed
    assert (
        "Incorrect args for pair coefficients" in res.message and "6 here" in res.message and "names 2" in res.message
    )


def test_pair_coeff_element_per_type_passes_and_checks_the_file(tmp_path):
    check = typed_check("lammps.pair_coeff", reference="x", params={"allowed_files": ["Si.sw"]})
    good = _script(tmp_path / "a", SW_SCRIPT.format(n=1, file="/usr/share/lammps/potentials/Si.sw", elements="Si"),
                   check, x=["Si"])  # fmt: skip
    assert good.passed, good.message
    wrong_file = _script(tmp_path / "b", SW_SCRIPT.format(n=1, file="Si.tersoff", elements="Si"), check, x=["Si"])
    assert not wrong_file.passed and "Si.tersoff" in wrong_file.message
    wrong_element = _script(tmp_path / "c", SW_SCRIPT.format(n=1, file="Si.sw", elements="C"), check, x=["Si"])
    assert not wrong_element.passed and "['C'] != ['Si']" in wrong_element.message


def test_pair_coeff_set_match_accepts_two_types_of_the_same_element(tmp_path):
    check = typed_check("lammps.pair_coeff", reference="x", params={"match": "set"})
    res = _script(tmp_path, SW_SCRIPT.format(n=2, file="Si.sw", elements="Si Si"), check, x=["Si"])
    assert res.passed, res.message
    per_type = typed_check("lammps.pair_coeff", reference="x")
    assert not _script(tmp_path / "p", SW_SCRIPT.format(n=2, file="Si.sw", elements="Si Si"), per_type,
                       x=["Si"]).passed  # fmt: skip


def test_tdamp_given_in_steps_instead_of_time_fails_the_damp_steps_check(tmp_path):
    text = NPT_SCRIPT.replace("$(100*dt)", "100")  # 100 ps with dt = 0.001 ps: 100000 steps
    check = setting_check("fix.npt.temp.damp_steps", reference=None, params={"min": 20, "max": 1000})
    res = _script(tmp_path, text, check)
    assert not res.passed and res.actual == pytest.approx(100_000)
    fix_check = typed_check("lammps.fix", params={"style": "npt", "temp_damp_steps": {"min": 20, "max": 1000}})
    res = _script(tmp_path / "f", text, fix_check)
    assert not res.passed and "not a number of steps" in res.message


def test_tdamp_of_100_timesteps_passes(tmp_path):
    check = setting_check("fix.npt.temp.damp_steps", tolerance={"rel": 0.01})
    res = _script(tmp_path, NPT_SCRIPT, check, x=100)
    assert res.passed, res.message
    p_check = setting_check("fix.npt.pressure.damp_steps", reference=None, params={"min": 100, "max": 10000})
    assert _script(tmp_path / "p", NPT_SCRIPT, p_check).passed


def test_variables_resolve_in_fix_arguments(tmp_path):
    check = typed_check(
        "lammps.fix",
        tolerance={"abs": 1.0},
        params={"style": "npt", "keywords": {"temp": [300, 300, None], "pressure": [0, 0, None]}},
    )
    res = _script(tmp_path, NPT_SCRIPT, check)
    assert res.passed, res.message
    hot = _script(tmp_path / "hot", NPT_SCRIPT.replace("equal 300", "equal 600"), check)
    assert not hot.passed and "600" in hot.message


def test_include_of_a_file_outside_the_submission_fails_clearly(tmp_path):
    outside = tmp_path / "secret.in"
    outside.write_text("timestep 0.001\n")
    for path in (str(outside), "../secret.in"):
        text = f"units metal\ninclude {path}\n{box()}run 10\n"
        res = _script(tmp_path / "sub", text, setting_check("units"), x="metal")
        assert not res.passed
        assert "outside the submission" in res.message and "in.lmp:2" in res.message


def test_include_inside_the_submission_is_followed(tmp_path):
    files = {
        "in.lmp": "units metal\ninclude settings/md.in\n" + box() + "run 10\n",
        "settings/md.in": "timestep 0.002\n",
    }
    res = grade_files(tmp_path, files, setting_check("timestep"), x=0.002)
    assert res.passed, res.message


def test_include_of_a_missing_file_fails(tmp_path):
    res = _script(tmp_path, "include nowhere.in\n", setting_check("units"), x="lj")
    assert not res.passed and "not found" in res.message


def test_infinite_include_recursion_fails(tmp_path):
    res = _script(tmp_path, "units metal\ninclude in.lmp\n", setting_check("units"), x="metal")
    assert not res.passed and "nested more than" in res.message


def test_mutual_include_recursion_fails(tmp_path):
    files = {"in.lmp": "include b.in\n", "b.in": "include in.lmp\n"}
    res = grade_files(tmp_path, files, setting_check("units"), x="lj")
    assert not res.passed and "nested more than" in res.message


def test_shell_and_python_commands_are_never_executed(tmp_path, monkeypatch):
    sentinel = tmp_path / "sentinel"
    sentinel.mkdir()
    (sentinel / "keep").write_text("x")
    marker = tmp_path / "marker"
    text = (
        "shell rm -rf /\n"
        f"shell rm -rf {sentinel}\n"
        f"shell touch {marker}\n"
        f'python hack here """\nopen("{marker}", "w").write("x")\n"""\n'
        f'python hack invoke\nvariable s python hack\nprint "${{s}}"\n'
        f"units metal\n{box()}run 10\n"
    )

    def refuse(*args, **kwargs):
        raise AssertionError("the grader tried to start a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)
    res = _script(tmp_path / "sub", text, setting_check("units"), x="metal")
    assert res.passed, res.message
    assert (sentinel / "keep").exists() and not marker.exists()


def test_grader_module_has_no_process_or_eval_machinery():
    import ast

    import cmb.grading.lammps as package

    modules = sorted(Path(package.__file__).parent.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        tree = ast.parse(path.read_text())
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
        assert not imported & {"os", "subprocess", "pickle", "shutil", "ctypes", "pty", "multiprocessing"}, path.name
        called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not called & {"eval", "exec", "compile", "__import__", "open"}, path.name
