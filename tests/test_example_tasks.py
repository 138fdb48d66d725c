"""The three example tasks, end to end: the oracle passes, an empty folder fails, a value just outside fails.

One task per kind: si-eos-analysis (output analysis of committed pw.x outputs), cu-eam-elastic (run-and-analyze
with LAMMPS) and si-pw-scf-inputs (input preparation for pw.x). Oracles that run a simulation code are `slow`
and are skipped where the code is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from cmb.grading import grade
from cmb.models import GradeReport, GraderSpec, Reference, TaskSpec

ROOT = Path(__file__).resolve().parents[1]
STUDY = {
    "si-eos-analysis": "si-first-principles",
    "cu-eam-elastic": "cu-eam",
    "si-pw-scf-inputs": "si-first-principles",
}
JSON_TASKS = ["si-eos-analysis", "cu-eam-elastic"]


def task_dir(task: str) -> Path:
    return ROOT / "tasks" / STUDY[task] / task


def load(task: str) -> tuple[TaskSpec, GraderSpec, Reference]:
    spec = TaskSpec.model_validate(yaml.safe_load((task_dir(task) / "task.yaml").read_text()))
    grader = GraderSpec.model_validate(yaml.safe_load((ROOT / "graders" / f"{task}.yaml").read_text()))
    ref = Reference.model_validate(yaml.safe_load((ROOT / "references" / task / "reference.yaml").read_text()))
    return spec, grader, ref


def grade_dir(task: str, submission: Path) -> GradeReport:
    _, grader, ref = load(task)
    return grade(grader, ref, submission, ROOT / "references" / task)


def stage(task: str, dest: Path) -> Path:
    """The agent's view: the task's staged workspace files, nothing else."""
    spec, _, _ = load(task)
    for rel in spec.workspace:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task_dir(task) / "workspace" / rel, dest / rel)
    return dest


def run_oracle(task: str, dest: Path) -> Path:
    solution = ROOT / "references" / task / "solution"
    env = {**os.environ, "CMB_SOLUTION_DIR": str(solution), "OMP_NUM_THREADS": "1"}
    subprocess.run(
        ["bash", str(solution / "solve.sh")],
        cwd=stage(task, dest),
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
    )
    return dest


def failed(report: GradeReport) -> set[str]:
    return {c.id for c in report.checks if not c.passed}


@pytest.mark.parametrize("task", list(STUDY))
def test_task_files_are_consistent(task):
    spec, grader, ref = load(task)
    assert spec.id == grader.task == ref.task == task
    assert spec.study == STUDY[task]
    for rel in spec.workspace:
        assert (task_dir(task) / "workspace" / rel).is_file()
    for check in grader.checks:
        assert check.target.file in spec.answer_files
        assert check.reference is None or check.reference in ref.values
    for name in ref.files:
        assert (ROOT / "references" / task / name).is_file()
    assert (ROOT / "references" / task / "solution" / "solve.sh").is_file()
    assert (ROOT / "references" / task / "reproduce" / "reproduce.sh").is_file()
    assert (ROOT / "references" / task / "QC.md").is_file()


@pytest.mark.parametrize("task", list(STUDY))
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    full = (task_dir(task) / "prompt.full.md").read_text()
    reduced = (task_dir(task) / "prompt.reduced.md").read_text()
    assert "## Method" in full and "## Method" not in reduced
    without_method = re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S)
    assert without_method == reduced


@pytest.mark.parametrize("task", list(STUDY))
def test_empty_submission_fails(task, tmp_path):
    report = grade_dir(task, tmp_path)
    assert not report.passed
    assert report.score == 0
    assert report.failure_category == "format"


@pytest.mark.parametrize("task", list(STUDY))
def test_staged_workspace_alone_fails(task, tmp_path):
    # An agent that does nothing leaves only the staged files behind.
    assert not grade_dir(task, stage(task, tmp_path)).passed


# --- output analysis: si-eos-analysis -------------------------------------------------------------------------


def test_si_eos_oracle_passes(tmp_path):
    report = grade_dir("si-eos-analysis", run_oracle("si-eos-analysis", tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


def _answer_from_reference(task: str) -> dict[str, float]:
    _, grader, ref = load(task)
    return {c.target.field: ref.values[c.reference].value for c in grader.checks if c.type == "numeric.scalar"}


@pytest.mark.parametrize("task", JSON_TASKS)
def test_reference_values_pass(task, tmp_path):
    (tmp_path / "answer.json").write_text(json.dumps(_answer_from_reference(task)))
    assert grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", JSON_TASKS)
@pytest.mark.parametrize("side", [1, -1])
def test_value_just_outside_tolerance_fails_only_its_check(task, side, tmp_path):
    _, grader, ref = load(task)
    for check in [c for c in grader.checks if c.type == "numeric.scalar"]:
        answer = _answer_from_reference(task)
        tol = check.effective_tolerance
        expected = ref.values[check.reference].value
        width = tol.width * abs(expected) if tol.is_relative else tol.width
        answer[check.target.field] = expected + side * 1.02 * width
        (tmp_path / "answer.json").write_text(json.dumps(answer))
        assert failed(grade_dir(task, tmp_path)) == {check.id}
        answer[check.target.field] = expected + side * 0.98 * width
        (tmp_path / "answer.json").write_text(json.dumps(answer))
        assert grade_dir(task, tmp_path).passed


def test_si_eos_lowest_grid_point_without_a_fit_fails(tmp_path):
    # Reading a0 off the lowest-energy run instead of fitting: the grid was placed so that this misses.
    energies = {}
    for out in sorted((task_dir("si-eos-analysis") / "workspace").glob("scf_*.out")):
        text = out.read_text()
        alat = float(re.search(r"lattice parameter \(alat\)\s*=\s*([\d.]+)", text).group(1))
        energies[alat] = float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+)", text, re.M)[-1])
    a = min(energies, key=energies.__getitem__) * 0.529177210903
    answer = _answer_from_reference("si-eos-analysis") | {"a0_angstrom": a, "V0_per_atom_A3": a**3 / 8}
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    assert failed(grade_dir("si-eos-analysis", tmp_path)) == {"a0", "v0"}


def test_si_eos_volume_per_cell_instead_of_per_atom_fails(tmp_path):
    answer = _answer_from_reference("si-eos-analysis")
    answer["V0_per_atom_A3"] *= 2
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    assert failed(grade_dir("si-eos-analysis", tmp_path)) == {"v0"}


# --- run and analyze: cu-eam-elastic --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed")
def test_cu_eam_oracle_passes(tmp_path):
    report = grade_dir("cu-eam-elastic", run_oracle("cu-eam-elastic", tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_cu_eam_c44_shear_strain_factor_two_fails(factor, tmp_path):
    answer = _answer_from_reference("cu-eam-elastic")
    answer["C44_GPa"] *= factor
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    assert failed(grade_dir("cu-eam-elastic", tmp_path)) == {"c44"}


def test_cu_eam_pressure_taken_as_stress_fails(tmp_path):
    answer = _answer_from_reference("cu-eam-elastic")
    for key in ("C11_GPa", "C12_GPa", "C44_GPa"):
        answer[key] = -answer[key]
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    assert failed(grade_dir("cu-eam-elastic", tmp_path)) == {"c11", "c12", "c44"}


def test_cu_eam_negative_cohesive_energy_is_accepted(tmp_path):
    answer = _answer_from_reference("cu-eam-elastic")
    answer["Ecoh_eV_per_atom"] = -answer["Ecoh_eV_per_atom"]
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    assert grade_dir("cu-eam-elastic", tmp_path).passed


# --- input preparation: si-pw-scf-inputs ----------------------------------------------------------------------

REFERENCE_PW_IN = (ROOT / "references" / "si-pw-scf-inputs" / "pw.in").read_text()

CUBIC_CELL_PW_IN = """&control
  pseudo_dir = 'pseudo/', outdir = 'out'
/
&system
  ibrav = 1, A = 5.431, nat = 8, ntyp = 1, ecutwfc = 30
/
&electrons
/
ATOMIC_SPECIES
Si 28.086 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0 0 0
Si 0 0.5 0.5
Si 0.5 0 0.5
Si 0.5 0.5 0
Si 0.25 0.25 0.25
Si 0.25 0.75 0.75
Si 0.75 0.25 0.75
Si 0.75 0.75 0.25
K_POINTS automatic
6 6 6 0 0 0
"""

EXPLICIT_VECTORS_PW_IN = """&CONTROL
  pseudo_dir = './pseudo'
/
&SYSTEM
  ibrav = 0, nat = 2, ntyp = 1, ecutwfc = 30
/
&ELECTRONS
/
ATOMIC_SPECIES
Si 28.086 Si.pbe-rrkj.UPF
CELL_PARAMETERS angstrom
0.0 2.7155 2.7155
2.7155 0.0 2.7155
2.7155 2.7155 0.0
ATOMIC_POSITIONS angstrom
Si 0 0 0
Si 1.35775 1.35775 1.35775
K_POINTS automatic
10 10 10 0 0 0
"""


def grade_pw_in(text: str, tmp_path: Path) -> GradeReport:
    (tmp_path / "pw.in").write_text(text)
    return grade_dir("si-pw-scf-inputs", tmp_path)


@pytest.mark.slow
def test_si_pw_scf_oracle_passes(tmp_path):
    # The oracle runs pw.x on its own input when pw.x is installed (about a second), else only writes it.
    report = grade_dir("si-pw-scf-inputs", run_oracle("si-pw-scf-inputs", tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    "text", [REFERENCE_PW_IN, CUBIC_CELL_PW_IN, EXPLICIT_VECTORS_PW_IN], ids=["reference", "8-atom-cube", "ibrav0"]
)
def test_si_pw_scf_equivalent_inputs_pass(text, tmp_path):
    report = grade_pw_in(text, tmp_path)
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        # angstrom written as bohr: the cell shrinks, and so does the k-point density of its mesh
        ("celldm(1) = 10.2631", "celldm(1) = 5.431", {"structure", "kpoints"}),
        ("celldm(1) = 10.2631", "celldm(1) = 10.3247", {"structure"}),  # 0.6% off: just outside 0.5%
        ("Si 0.25 0.25 0.25", "Si 0.50 0.50 0.50", {"structure"}),  # fcc-like, not diamond
        ("ecutwfc = 30.0", "ecutwfc = 26.9", {"ecutwfc"}),  # just below the 1 meV/atom cutoff
        ("ecutwfc = 30.0", "ecutwfc = 30.0, ecutrho = 90", {"ecutrho"}),  # below 4 x ecutwfc
        ("10 10 10 0 0 0", "8 8 8 0 0 0", {"kpoints"}),  # the habitual mesh, 1.85 meV/atom from converged
        ("10 10 10 0 0 0", "4 4 4 1 1 1", {"kpoints"}),  # the prompt asks for a Gamma-centred mesh
        ("K_POINTS automatic\n10 10 10 0 0 0", "K_POINTS gamma", {"kpoints"}),
        ("occupations = 'fixed'", "occupations = 'smearing', degauss = 0.01", {"occupations"}),
        ("  pseudo_dir = './pseudo'\n", "", {"pseudo-dir"}),  # would not run from the working folder
        ("Si.pbe-rrkj.UPF", "Si.pz-vbc.UPF", {"species"}),  # LDA pseudopotential
    ],
)
def test_si_pw_scf_trap_fails_its_check(old, new, failing, tmp_path):
    assert old in REFERENCE_PW_IN
    report = grade_pw_in(REFERENCE_PW_IN.replace(old, new), tmp_path)
    assert failed(report) == failing


def test_si_pw_scf_cutoff_at_the_converged_minimum_passes(tmp_path):
    assert grade_pw_in(REFERENCE_PW_IN.replace("ecutwfc = 30.0", "ecutwfc = 27"), tmp_path).passed


def test_si_pw_scf_spin_polarised_fixed_occupations_is_rejected_as_pw_x_would(tmp_path):
    # pw.x 6.7 stops on nspin=2 with fixed occupations and no tot_magnetization.
    text = REFERENCE_PW_IN.replace("occupations = 'fixed'", "nspin = 2, starting_magnetization(1) = 0.5")
    report = grade_pw_in(text, tmp_path)
    assert {"input-readable", "spin"} <= failed(report)
    assert report.failure_category == "format"
