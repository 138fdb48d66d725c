"""lammps.* check types: a static reading of LAMMPS input scripts, checked against the real LAMMPS."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cmb.grading import GraderConfigError, run_check, validate_params
from cmb.grading._registry import REGISTRY, CheckContext, Outcome
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.lammps import interpret, logical_lines, lookup, tables
from cmb.models import Check
from tests.conftest import make_reference, write_files
from tests.grading._lammps_helpers import (
    POTENTIALS,
    box,
    grade_files,
    needs_lmp,
    printed,
    run_lmp,
    setting_check,
    typed_check,
)

NPT_SCRIPT = """# Cu at 300 K and 0 bar
variable T equal 300
units metal
lattice fcc 3.615
region b block 0 4 0 4 0 4
create_box 1 b
create_atoms 1 box
mass 1 63.546
pair_style eam
pair_coeff 1 1 Cu_u3.eam
velocity all create ${T} 4928459 dist gaussian
fix md all npt temp ${T} ${T} $(100*dt) iso 0.0 0.0 $(1000*dt)
run 10000
"""

SW_SCRIPT = """units metal
region b block 0 10 0 10 0 10
create_box {n} b
pair_style sw
pair_coeff * * {file} {elements}
fix 1 all nvt temp 1000 1000 0.1
run 100
"""


def _script(tmp_path: Path, text: str, check: Check, **values) -> object:
    return grade_files(tmp_path, {"in.lmp": text}, check, **values)


# ------------------------------------------------------------------------------------------------ traps


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


# ------------------------------------------------------------------------------------------------ settings


def test_defaults_of_a_bare_script(tmp_path):
    root = write_files(tmp_path, {"in.lmp": box() + "run 0\n"})
    values = interpret(Submission(root), "in.lmp").stages[-1].values
    assert lookup("units", values) == "lj"
    assert lookup("timestep", values) == 0.005
    assert lookup("atom_style", values) == "atomic"
    assert lookup("boundary", values) == ["p", "p", "p"]
    assert lookup("neighbor", values) == [0.3, "bin"]
    assert lookup("ntypes", values) == 1


@pytest.mark.parametrize("units", sorted(tables().dt))
def test_each_unit_style_has_its_default_timestep(tmp_path, units):
    res = _script(tmp_path, f"units {units}\n", setting_check("timestep", tolerance={"rel": 1e-9}),
                  x=tables().dt[units])  # fmt: skip
    assert res.passed, res.message


def test_setting_any_of_not_min_max(tmp_path):
    text = "units real\n" + box() + "run 5\n"
    assert _script(
        tmp_path / "a", text, setting_check("units", reference=None, params={"any_of": ["metal", "real"]})
    ).passed
    res = _script(tmp_path / "b", text, setting_check("units", reference=None, params={"not": ["real"]}))
    assert not res.passed and "excluded" in res.message
    res = _script(tmp_path / "c", text, setting_check("timestep", reference=None, params={"max": 0.5}))
    assert not res.passed and "outside" in res.message
    assert _script(tmp_path / "d", text, setting_check("run", reference=None, params={"min": 5})).passed


def test_integer_settings_compare_exactly(tmp_path):
    text = "units metal\n" + box() + "run 10001\n"
    res = _script(tmp_path, text, setting_check("run"), x=10000)
    assert not res.passed and "!=" in res.message


def test_units_are_case_sensitive_as_in_lammps(tmp_path):
    res = _script(tmp_path, "units Metal\n", setting_check("units"), x="metal")
    assert not res.passed and "Illegal units command" in res.message


def test_setting_lists_compare_element_wise_with_dont_care(tmp_path):
    check = setting_check("fix.npt.iso", tolerance={"abs": 0.5})
    assert _script(tmp_path, NPT_SCRIPT, check, x=[0, 0, None]).passed
    assert not _script(tmp_path / "b", NPT_SCRIPT, check, x=[1.0, 1.0, None]).passed


def test_zero_pressure_reference_under_relative_tolerance_means_exactly_zero(tmp_path):
    check = setting_check("fix.npt.pressure.0")
    assert _script(tmp_path, NPT_SCRIPT, check, x=0).passed
    text = NPT_SCRIPT.replace("iso 0.0 0.0", "iso 1.0 1.0")
    assert not _script(tmp_path / "b", text, check, x=0).passed


def test_read_data_header_and_masses(tmp_path):
    data = (
        "LAMMPS data file\n\n 8 atoms\n 2 atom types\n\n 0.0 5.43 xlo xhi\n 0.0 5.43 ylo yhi\n 0.0 5.43 zlo zhi\n\n"
        "Masses\n\n1 28.0855 # Si\n2 12.011\n\nAtoms # atomic\n\n"
        + "".join(f"{i} {1 + i % 2} 0.0 0.0 {i * 0.5}\n" for i in range(1, 9))
    )
    text = "units metal\nread_data si.data\npair_style tersoff\npair_coeff * * SiC.tersoff Si C\nrun 0\n"
    files = {"in.lmp": text, "si.data": data}
    assert grade_files(tmp_path, files, setting_check("ntypes"), x=2).passed
    assert grade_files(tmp_path, files, setting_check("mass.2", tolerance={"abs": 0.01}), x=12.011).passed
    assert grade_files(tmp_path, files, setting_check("natoms"), x=8).passed
    check = typed_check("lammps.pair_coeff", reference="x")
    assert grade_files(tmp_path, files, check, x=["Si", "C"]).passed


def test_read_data_file_not_in_submission_leaves_atom_types_unknown(tmp_path):
    text = "units metal\nread_data /data/si.data\npair_style sw\npair_coeff * * Si.sw Si\nrun 0\n"
    res = _script(tmp_path, text, typed_check("lammps.pair_coeff", reference="x"), x=["Si"])
    assert not res.passed and "cannot be read" in res.message
    assert _script(tmp_path / "u", text, setting_check("units"), x="metal").passed  # the rest is still graded


def test_eam_funcfl_maps_one_file_per_type(tmp_path):
    check = typed_check("lammps.pair_coeff", reference="x", params={"file_elements": {"Cu_u3.eam": "Cu"},
                                                                    "allowed_files": ["Cu_u3.eam"]})  # fmt: skip
    res = _script(tmp_path, NPT_SCRIPT, check, x=["Cu"])
    assert res.passed, res.message


def test_hybrid_pair_style_maps_elements_across_sub_styles(tmp_path):
    text = (
        "units metal\n" + box(2) + "pair_style hybrid sw tersoff\n"
        "pair_coeff * * sw Si.sw Si NULL\npair_coeff * * tersoff SiC.tersoff NULL C\nrun 0\n"
    )
    res = _script(tmp_path, text, typed_check("lammps.pair_coeff", reference="x"), x=["Si", "C"])
    assert res.passed, res.message


def test_langevin_thermostat_damping(tmp_path):
    text = "units metal\n" + box() + "fix 1 all nve\nfix 2 all langevin 300 300 0.1 48279\nrun 100\n"
    check = typed_check("lammps.fix", params={"style": "langevin", "keywords": {"temp": [300, 300, None]},
                                              "temp_damp_steps": {"min": 50, "max": 200}})  # fmt: skip
    res = _script(tmp_path, text, check)
    assert res.passed and "100 steps" in res.message, res.message


def test_fix_on_another_group_does_not_count(tmp_path):
    text = "units metal\n" + box() + "group mobile type 1\nfix 1 mobile nvt temp 300 300 0.1\nrun 100\n"
    res = _script(tmp_path, text, typed_check("lammps.fix", params={"style": "nvt"}))
    assert not res.passed and "no fix nvt on group all" in res.message
    assert _script(tmp_path / "g", text, typed_check("lammps.fix", params={"style": "nvt", "group": None})).passed


def test_fix_check_matches_the_style_not_an_id(tmp_path):
    text = "units metal\n" + box() + "fix npt all nvt temp 300 300 0.1\nrun 100\n"
    res = _script(tmp_path, text, typed_check("lammps.fix", params={"style": "npt"}))
    assert not res.passed and "no fix npt" in res.message
    assert _script(tmp_path / "id", text, setting_check("fix.npt.style"), x="nvt").passed  # paths accept IDs


def test_accelerated_fix_and_pair_styles_count_as_the_plain_ones(tmp_path):
    text = SW_SCRIPT.format(n=1, file="Si.sw", elements="Si").replace("pair_style sw", "pair_style sw/omp")
    text = text.replace("all nvt", "all nvt/omp")
    assert _script(tmp_path, text, typed_check("lammps.pair_coeff", reference="x"), x=["Si"]).passed
    assert _script(tmp_path / "f", text, typed_check("lammps.fix", params={"style": "nvt"})).passed


def test_fix_defined_after_the_last_run_never_acts(tmp_path):
    text = "units metal\n" + box() + "run 100\nfix 1 all nvt temp 300 300 0.1\n"
    res = _script(tmp_path, text, typed_check("lammps.fix", params={"style": "nvt"}))
    assert not res.passed and "at any run or minimize" in res.message


def test_unfix_removes_a_fix(tmp_path):
    text = "units metal\n" + box() + "fix 1 all nvt temp 300 300 0.1\nrun 10\nunfix 1\nfix 2 all nve\nrun 10\n"
    res = _script(tmp_path, text, typed_check("lammps.fix", params={"style": "nvt", "at": "every"}))
    assert res.passed  # "every" counts only the stages where an nvt fix is in effect
    check = setting_check("fix.nvt.temp.2", reference=None, params={"max": 1})
    assert _script(tmp_path / "b", text, check).passed


def test_heating_then_production_reads_the_last_stage(tmp_path):
    text = (
        "units metal\n" + box() + "fix 1 all npt temp 10 300 0.1 iso 0 0 1\nrun 1000\nunfix 1\n"
        "fix 2 all npt temp 300 300 0.1 iso 0 0 1\nrun 5000\n"
    )
    last = typed_check(
        "lammps.fix", tolerance={"abs": 1}, params={"style": "npt", "keywords": {"temp": [300, 300, None]}}
    )
    assert _script(tmp_path, text, last).passed
    every = typed_check("lammps.fix", tolerance={"abs": 1},
                        params={"style": "npt", "at": "every", "keywords": {"temp": [300, 300, None]}})  # fmt: skip
    res = _script(tmp_path / "e", text, every)
    assert not res.passed and "run in.lmp:5" in res.message


def test_minimize_settings(tmp_path):
    text = "units metal\n" + box() + "minimize 1.0e-10 1.0e-10 1000 10000\n"
    assert _script(tmp_path, text, setting_check("minimize.etol", tolerance={"rel": 1e-6}), x=1e-10).passed
    assert _script(tmp_path, text, setting_check("minimize.maxiter"), x=1000).passed


def test_clear_resets_settings_but_keeps_variables(tmp_path):
    text = "variable u string metal\nunits real\nclear\nunits ${u}\n" + box() + "run 0\n"
    assert _script(tmp_path, text, setting_check("units"), x="metal").passed
    assert _script(tmp_path / "t", text, setting_check("timestep"), x=0.001).passed


def test_command_line_variables_param(tmp_path):
    text = "units metal\n" + box() + "fix 1 all nvt temp ${T} ${T} 0.1\nrun 10\n"
    check = setting_check("fix.nvt.temp.0", params={"variables": {"T": "500"}})
    assert _script(tmp_path, text, check, x=500).passed
    res = _script(tmp_path / "b", text, setting_check("fix.nvt.temp.0"), x=500)
    assert not res.passed and "Substitution for illegal variable T" in res.message


# ------------------------------------------------------------------------------------------------ control flow


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


# ------------------------------------------------------------------------------------------------ parsing


def test_continuation_drops_the_ampersand_and_joins_directly():
    assert logical_lines("timestep 0.00&\n5\nrun 1") == [(1, "timestep 0.005"), (3, "run 1")]
    assert logical_lines("fix 1 all nvt &\n  temp 1 1 1") == [(1, "fix 1 all nvt   temp 1 1 1")]


def test_comment_ending_in_ampersand_swallows_the_next_line(tmp_path):
    text = "units metal\ntimestep 0.001 # comment &\ntimestep 0.003\n" + box() + "run 0\n"
    assert _script(tmp_path, text, setting_check("timestep"), x=0.001).passed


def test_hash_and_dollar_inside_quotes_are_literal(tmp_path):
    text = "units metal\n" + box() + "thermo_style custom step '#temp' \"$x\"\nrun 0\n"
    res = _script(tmp_path, text, setting_check("thermo_style"), x=["custom", "step", "#temp", "$x"])
    assert res.passed, res.message


def test_formula_precedence_follows_lammps(tmp_path):
    text = "variable a equal -2^2\nvariable b equal 2^3^2\nvariable c equal 2+3*4^2/8-1\n" + box() + "run 0\n"
    root = write_files(tmp_path, {"in.lmp": text})
    values = interpret(Submission(root), "in.lmp").stages[-1].values
    assert [lookup(f"variable.{v}", values) for v in "abc"] == ["4", "64", "7"]


def test_redefining_an_index_variable_is_ignored(tmp_path):
    text = "variable T index 300\nvariable T index 500\nunits metal\n" + box() + "fix 1 all nvt temp $T $T 0.1\nrun 1\n"
    assert _script(tmp_path, text, setting_check("fix.nvt.temp.0"), x=300).passed


# ------------------------------------------------------------------------------------------------ the real LAMMPS


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("units", sorted(tables().dt))
def test_default_timestep_matches_lammps(tmp_path, units):
    status, out = run_lmp(f'units {units}\n{box()}print "DT $(dt)"\n', tmp_path)
    assert status == 0, out
    assert float(printed(out, "DT")) == pytest.approx(tables().dt[units], rel=1e-12)


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("units", ["lj", "metal", "real"])
def test_default_neighbor_skin_matches_lammps(tmp_path, units):
    """LAMMPS prints cutoff + skin as 'master list distance cutoff'; pair cutoff is 1.0 here."""
    script = (f"units {units}\nlattice sc 1.0\n{box()}create_atoms 1 box\nmass 1 1.0\n"
              "pair_style lj/cut 1.0\npair_coeff * * 0.0 0.5\nrun 0\n")  # fmt: skip
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    cutoff = float(out.split("master list distance cutoff =")[1].split()[0])
    assert cutoff - 1.0 == pytest.approx(tables().skin[units])


# Scripts with the value LAMMPS prints as "OUT", and the setting path whose value must agree.
AGREEMENT = {
    "units-resets-timestep": ("timestep 0.002\nunits metal\n" + box() + 'print "OUT $(dt)"\n', "timestep"),
    "continuation": ("units metal\n" + box() + "timestep 0.00&\n5\n" + 'print "OUT $(dt)"\n', "timestep"),
    "comment-ampersand": (
        "units metal\n" + box() + "timestep 0.002 # c &\ntimestep 0.003\n" + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "immediate": ("units real\n" + box() + "timestep $(0.5*dt)\n" + 'print "OUT $(dt)"\n', "timestep"),
    "equal-var": (
        "variable d equal 2*0.0005\nunits metal\n" + box() + "timestep ${d}\n" + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "loop": (
        "variable i loop 3\nlabel l\nvariable t equal ${i}*0.001\nnext i\njump SELF l\nunits metal\n"
        + box()
        + "timestep ${t}\n"
        + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "if-else": (
        'variable a equal 2\nif "${a} > 3" then "units real" elif "${a} > 1" "units si" else '
        '"units lj"\n' + box() + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "if-jump-out-of-loop": (
        "variable a index 1 2 3 4\nlabel top\nvariable t equal ${a}*0.0001\n"
        'if "${a} >= 3" then "jump SELF done"\nnext a\njump SELF top\nlabel done\nunits metal\n'
        + box()
        + "timestep ${t}\n"
        + 'print "OUT $(dt)"\n',
        "timestep",
    ),
    "clear": ("units metal\n" + box() + "clear\nunits real\n" + box() + 'print "OUT $(dt)"\n', "timestep"),
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(AGREEMENT))
def test_interpreter_agrees_with_lammps(tmp_path, name):
    script, path = AGREEMENT[name]
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    result = interpret(Submission(root), "in.lmp")
    assert result.stop is None
    assert lookup(path, result.stages[-1].values) == pytest.approx(float(printed(out, "OUT")), rel=1e-12)


# Scripts LAMMPS refuses: the interpreter must stop on them too (and fail every check).
LAMMPS_ERRORS = {
    "sw-elements": "units metal\n" + box(6) + f"pair_style sw\npair_coeff * * {POTENTIALS}/Si.sw Si Si\n",
    "sw-not-star": "units metal\n" + box(1) + f"pair_style sw\npair_coeff 1 1 {POTENTIALS}/Si.sw Si\n",
    "units-after-box": "units metal\n" + box() + "units real\n",
    "bad-units": "units Metal\n",
    "undefined-var": "print OUT ${nope}\n",
    "equal-with-spaces": "variable a equal 2 * 3\n",
    "run-1e4": "units metal\n" + box() + "run 1e4\n",
    "timestep-ps": "units metal\n" + box() + "timestep 0.001ps\n",
    "unbalanced-quote": 'print "OUT a" "b\n',
    "quote-glued": 'print "OUT a"b\n',
    "divide-by-zero": 'variable x equal 1/0\nprint "OUT $x"\n',
    "fix-before-box": "units metal\nfix 1 all nve\n",
    "run-before-box": "units metal\nrun 0\n",
    "mass-out-of-range": "units metal\n" + box(2) + "mass 3 1.0\n",
    "unfix-missing": "units metal\n" + box() + "unfix 3\n",
    "replace-fix-style": "units metal\n" + box() + "fix 1 all npt temp 1 1 1 iso 0 0 1\nfix 1 all nvt temp 1 1 1\n",
    "redefine-style": "variable a equal 3\nvariable a string x\n",
    "pair-coeff-first": "units metal\n" + box() + "pair_coeff * * 1 1\n",
    "missing-label": "jump SELF nowhere\n",
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAMMPS_ERRORS))
def test_interpreter_stops_where_lammps_stops(tmp_path, name):
    script = LAMMPS_ERRORS[name]
    status, out = run_lmp(script, tmp_path)
    assert status != 0, f"LAMMPS accepted it:\n{out}"
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    result = interpret(Submission(root), "in.lmp")
    assert result.stop is not None and "LAMMPS stops here" in result.stop


LAMMPS_ACCEPTS = {
    "hybrid": "units metal\n" + box(2) + f"pair_style hybrid sw tersoff\npair_coeff * * sw {POTENTIALS}/Si.sw Si NULL\n"
    f"pair_coeff * * tersoff {POTENTIALS}/SiC.tersoff NULL C\n",
    "eam-star": "units metal\n" + box(2) + f"pair_style eam\npair_coeff * * {POTENTIALS}/Cu_u3.eam\n",
    "index-redefined": "variable T index 300\nvariable T index 500\n",
    "fix-replaced-same-style": "units metal\n" + box() + "fix 1 all nvt temp 1 1 1\nfix 1 all nvt temp 2 2 1\n",
    "loop": "label a\nvariable i loop 3\nnext i\njump SELF a\n",
    "quoted-hash": "print 'OUT #1'\n",
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAMMPS_ACCEPTS))
def test_interpreter_accepts_what_lammps_accepts(tmp_path, name):
    script = LAMMPS_ACCEPTS[name]
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    assert interpret(Submission(root), "in.lmp").stop is None


# ------------------------------------------------------------------------------------------------ hostile input

_TOKENS = [
    "units", "metal", "real", "timestep", "0.001", "1e999", "nan", "variable", "a", "b", "equal", "string", "index",
    "loop", "${a}", "$a", "$(1/0)", "$(v_a)", "$(", "${", "$", "v_a", "include", "in.lmp", "x.in", "/etc/passwd",
    "../x", "jump", "SELF", "label", "next", "if", "then", "else", "elif", '"', "'", '"""', "&", "#", "run", "10",
    "-1", "fix", "1", "all", "npt", "nvt", "temp", "iso", "300", "pair_style", "pair_coeff", "*", "sw", "eam",
    "hybrid", "Si.sw", "Si", "NULL", "create_box", "read_data", "mass", "clear", "quit", "shell", "python", "(",
    ")", "^", "-", "!", "\t", "\0", "é", "minimize", "velocity", "create", "unfix", "2*", "*3", "read_data",
    "d.data", "99999999999999999999999999", "1e308*1e308", "$(1e308*10)", "$(-1^0.5)", "$(sqrt(-1))",
]  # fmt: skip
_SCRIPTS = st.lists(st.lists(st.sampled_from(_TOKENS), max_size=12).map(" ".join), max_size=25).map(
    "\n".join
) | st.text(max_size=400)


_DATA = st.lists(
    st.sampled_from(
        [
            "",
            "Masses",
            "Atoms",
            "2 atom types",
            "1 28.0",
            "9" * 5000 + " atom types",
            "0 1 xlo xhi",
            "# c",
            "x",
            "3 atoms",
            "1e400 1 ylo yhi",
            "9" * 30 + " 2.0",
        ]
    ),
    max_size=12,
).map("\n".join)


def _all_checks() -> list[Check]:
    return [
        setting_check("timestep", reference=None, params={"min": 0}),
        setting_check("fix.npt.temp.damp_steps", reference=None, params={"max": 1000}),
        setting_check("pair_coeff.elements", reference=None, params={"any_of": [["Si"]]}),
        setting_check("mass", reference=None, params={"not": [[1.0]]}),
        typed_check("lammps.pair_coeff", reference="el"),
        typed_check(
            "lammps.fix",
            params={"style": "npt", "keywords": {"temp": [300, 300, None]}, "pressure_damp_steps": {"min": 1}},
        ),  # fmt: skip
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_SCRIPTS, data=_DATA)
def test_arbitrary_scripts_only_ever_fail_checks(tmp_path, text, data):
    """Whatever the script says, a check returns an Outcome or raises SubmissionError, never anything else."""
    root = tmp_path / "hyp"
    root.mkdir(exist_ok=True)
    (root / "in.lmp").write_bytes(text.encode("utf-8", "surrogatepass"))
    (root / "x.in").write_text("include in.lmp\n")
    (root / "d.data").write_text(data)
    submission = Submission(root)
    reference = make_reference(el=["Si"])
    for check in _all_checks():
        ctx = CheckContext(check, validate_params(check), submission, reference)
        try:
            outcome = REGISTRY.get(check.type).fn(ctx)
        except SubmissionError:
            continue
        assert isinstance(outcome, Outcome)
        assert isinstance(outcome.message, str)


def test_huge_variable_doubling_is_bounded(tmp_path):
    text = "variable a string xxxxxxxxxx\n" + "variable a string ${a}${a}\n" * 40 + "units ${a}\n"
    res = _script(tmp_path, text, setting_check("units"), x="metal")
    assert not res.passed and "longer than" in res.message


def test_deeply_nested_formula_is_bounded(tmp_path):
    text = "variable a equal " + "(" * 5000 + "1" + ")" * 5000 + "\nunits metal\n" + box() + "timestep ${a}\nrun 1\n"
    res = _script(tmp_path, text, setting_check("timestep"), x=1)
    assert not res.passed and "nested too deeply" in res.message


def test_long_variable_chain_is_bounded(tmp_path):
    text = "variable v0 equal 1\n" + "".join(f"variable v{i} equal v_v{i - 1}+1\n" for i in range(1, 3000))
    text += "units metal\n" + box() + "timestep ${v2999}\nrun 1\n"
    res = _script(tmp_path, text, setting_check("timestep"), x=3000)
    assert not res.passed and "nested too deeply" in res.message


def test_recursive_if_is_bounded(tmp_path):
    text = "variable c string x\nvariable c string 'if 1 then ${c}'\n${c}\n"
    res = _script(tmp_path, text, setting_check("units"), x="lj")
    assert not res.passed and "nested more than" in res.message


def test_many_ampersand_lines_join_in_linear_time(tmp_path):
    text = "print a" + " &\n b" * 200_000 + "\nunits metal\n"
    res = _script(tmp_path, text, setting_check("units"), x="metal")
    assert not res.passed and "longer than" in res.message


# ------------------------------------------------------------------------------------------------ a whole grader

CU_NPT_GRADER = """
task: cu-lammps-npt-inputs
checks:
  - {id: units, type: lammps.setting, category: software, target: {file: in.lmp, setting: units}, reference: units}
  - id: timestep
    type: lammps.setting
    category: scientific
    target: {file: in.lmp, setting: timestep}
    unit: ps
    params: {min: 0.0005, max: 0.002}
  - id: potential
    type: lammps.pair_coeff
    category: software
    target: {file: in.lmp}
    reference: elements
    params: {allowed_files: [Cu_u3.eam], file_elements: {Cu_u3.eam: Cu}}
  - id: npt
    type: lammps.fix
    category: scientific
    target: {file: in.lmp}
    tolerance: {abs: 1.0}
    params:
      style: npt
      keywords: {temp: [300, 300, null], pressure: [0, 0, null]}
      temp_damp_steps: {min: 20, max: 1000}
      pressure_damp_steps: {min: 100, max: 10000}
  - {id: length, type: lammps.setting, category: scientific, target: {file: in.lmp, setting: run},
     params: {min: 10000}}
"""


def test_a_whole_grader_passes_the_good_script_and_names_each_slip(tmp_path):
    import yaml

    from cmb.grading import grade
    from cmb.models import GraderSpec

    spec = GraderSpec.model_validate(yaml.safe_load(CU_NPT_GRADER))
    ref = make_reference("cu-lammps-npt-inputs", units="metal", elements=["Cu"])
    good = grade(spec, ref, write_files(tmp_path / "good", {"in.lmp": NPT_SCRIPT}))
    assert good.passed, [c.message for c in good.checks if not c.passed]
    fs_slip = NPT_SCRIPT.replace("velocity", "timestep 1.0\nvelocity")  # 1 ps steps; damping still 100 steps
    bad = grade(spec, ref, write_files(tmp_path / "fs", {"in.lmp": fs_slip}))
    assert [c.id for c in bad.checks if not c.passed] == ["timestep"]
    steps_slip = NPT_SCRIPT.replace("$(100*dt)", "100")  # Tdamp = 100 ps = 100000 steps
    bad = grade(spec, ref, write_files(tmp_path / "steps", {"in.lmp": steps_slip}))
    assert [c.id for c in bad.checks if not c.passed] == ["npt"]
    assert bad.failure_category == "scientific"
    wrong_map = NPT_SCRIPT.replace("create_box 1 b", "create_box 2 b")  # type 2 has no pair_coeff
    bad = grade(spec, ref, write_files(tmp_path / "map", {"in.lmp": wrong_map}))
    assert [c.id for c in bad.checks if not c.passed] == ["potential"]
    assert "atom type(s) [2]" in bad.checks[2].message


# -- lammps.no_fix: a second integrator or thermostat --------------------------------------------------------

NO_SECOND_INTEGRATOR = {"styles": ["nve", "nvt", "nph", "langevin", "temp/berendsen"]}


def test_no_fix_passes_a_single_integrator(tmp_path):
    res = _script(tmp_path, NPT_SCRIPT, typed_check("lammps.no_fix", params=NO_SECOND_INTEGRATOR))
    assert res.passed and "none of" in res.message, res.message


@pytest.mark.parametrize("extra", ["fix 9 all nve", "fix 9 all nve/omp", "fix 9 all langevin 300 300 0.1 4928"])
def test_no_fix_fails_a_second_integrator_or_thermostat(tmp_path, extra):
    text = NPT_SCRIPT.replace("\nrun ", f"\n{extra}\nrun ", 1)
    assert text != NPT_SCRIPT
    res = _script(tmp_path, text, typed_check("lammps.no_fix", params=NO_SECOND_INTEGRATOR))
    assert not res.passed and "fix 9" in res.message and "is in effect" in res.message, res.message


def test_no_fix_reads_the_stages_asked_for(tmp_path):
    # An nve warm-up that is unfixed before production: fine at the last run, not at every run.
    text = (
        "units metal\n" + box() + "fix 1 all nve\nrun 10\nunfix 1\nfix 2 all npt temp 300 300 0.1 iso 0 0 1\nrun 10\n"
    )
    assert _script(tmp_path, text, typed_check("lammps.no_fix", params={"styles": ["nve"]})).passed
    every = typed_check("lammps.no_fix", params={"styles": ["nve"], "at": "every"})
    res = _script(tmp_path / "every", text, every)
    assert not res.passed and "fix 1 (nve" in res.message, res.message


def test_no_fix_on_another_group_counts_only_when_asked(tmp_path):
    text = (
        "units metal\n" + box() + "group top type 1\nfix 1 all npt temp 300 300 0.1 iso 0 0 1\nfix 2 top nve\nrun 10\n"
    )
    assert not _script(tmp_path, text, typed_check("lammps.no_fix", params={"styles": ["nve"]})).passed
    only_all = typed_check("lammps.no_fix", params={"styles": ["nve"], "group": "all"})
    assert _script(tmp_path / "all", text, only_all).passed


def test_no_fix_cannot_be_satisfied_by_hiding_a_fix(tmp_path):
    # A fix defined only when a run-time condition holds may be in effect: that is no pass.
    text = (
        "units metal\n" + box() + "variable r equal random(0,1,4928)\nfix 1 all npt temp 300 300 0.1 iso 0 0 1\n"
        'if "${r} > 0.5" then "fix 2 all nve"\nrun 10\n'
    )
    res = _script(tmp_path, text, typed_check("lammps.no_fix", params={"styles": ["nve"]}))
    assert not res.passed and "cannot rule out" in res.message and "run time" in res.message, res.message


def test_no_fix_needs_a_style():
    with pytest.raises(GraderConfigError):
        validate_params(typed_check("lammps.no_fix", params={"styles": []}))
