"""Settings read at a stage: defaults, data files, pair styles, fixes, stages, variables."""

from __future__ import annotations

import pytest

from cmb.grading._submission import Submission
from cmb.grading.lammps import effective, interpret, lookup, tables
from cmb.grading.settings import Origin
from tests.conftest import write_files
from tests.grading.lammps._helpers import NPT_SCRIPT, SW_SCRIPT, _script, box, grade_files, setting_check, typed_check


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


def test_a_setting_says_whether_the_script_or_lammps_chose_its_value(tmp_path):
    text = "units metal\natom_style atomic\n" + box() + "fix 1 all nve\nrun 10\ntimestep 0.002\n"
    text += "variable t equal c_thermo_temp\nrun 10\nclear\n"
    root = write_files(tmp_path, {"in.lmp": text})
    first, last = interpret(Submission(root), "in.lmp").stages
    dt = effective("timestep", first)
    assert (dt.value, dt.origin, dt.note) == (0.001, Origin.CONDITIONAL_DEFAULT, "LAMMPS default for units metal")
    dt = effective("timestep", last)
    assert (dt.value, dt.origin, dt.note) == (0.002, Origin.SET, "set at in.lmp:7")
    assert effective("units", first).origin is Origin.SET and effective("atom_style", first).origin is Origin.SET
    assert effective("boundary", first).origin is Origin.DEFAULT
    assert effective("fix.nve", first).origin is Origin.SET
    assert effective("fix.npt", first).origin is Origin.ABSENT
    assert effective("variable.t", last).origin is Origin.UNKNOWN  # a compute, known only at run time
    cleared = interpret(Submission(write_files(tmp_path / "c", {"in.lmp": "units metal\nclear\n"})), "in.lmp")
    assert effective("units", cleared.stages[-1]).origin is Origin.DEFAULT
