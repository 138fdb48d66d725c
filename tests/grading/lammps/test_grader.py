"""A whole grader of lammps checks on one submission."""

from __future__ import annotations

import pytest

from cmb.grading import GraderConfigError, validate_params
from tests.conftest import make_reference, write_files
from tests.grading.lammps._helpers import NPT_SCRIPT, _script, box, typed_check

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
