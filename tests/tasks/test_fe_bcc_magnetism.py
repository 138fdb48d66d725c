"""Study fe-bcc-magnetism (bcc Fe with PBE and LDA): traps, physics of the references, oracles.

Tasks: fe-pw-spin-inputs (input preparation, pw.x: the cheapest converged settings), fe-moment (run-and-analyze,
pw.x) and fe-eos-analysis (output analysis of 66 staged pw.x runs). The fairness cases, the recall baseline and
the tolerance edges on the oracle's answer run in tests/tasks/test_gates.py; this module adds the study's own
traps and physics. The fe-moment oracle runs pw.x and is `slow`; every oracle runs at most once per module.
"""

from __future__ import annotations

import copy
import re
import shutil

import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
)

STUDY = "fe-bcc-magnetism"
HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="Quantum ESPRESSO (pw.x) not installed")

ALL = [
    "fe-pw-spin-inputs",
    "fe-moment",
    "fe-eos-analysis",
    "fe-bcc-fcc-transition-pressure",
    "fe-atom-reference-inputs",
    "fe-magnetovolume-coupling",
]
JSON_TASKS = ["fe-moment", "fe-eos-analysis", "fe-bcc-fcc-transition-pressure"]
FAST_ORACLES = ["fe-pw-spin-inputs", "fe-eos-analysis", "fe-bcc-fcc-transition-pressure", "fe-atom-reference-inputs"]
RY_EV = 13.605693123
BOHR_A = 0.529177210903


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert_entry_is_consistent(task, STUDY)


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    stage_bundle(entry(task), Condition.SF, tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", FAST_ORACLES)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.mark.parametrize("task", JSON_TASKS)
def test_reference_values_pass_and_hold_at_their_tolerance_edges(task, tmp_path):
    assert grade_answer(task, reference_answer(task), tmp_path / "ref").passed
    assert_tolerance_edges(task, reference_answer(task), tmp_path)


def test_study_graph_holds_every_task():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    listed = [t for s in study["steps"] for t in s.get("tasks", [])]
    assert sorted(listed) == sorted(ALL)
    heavy = {s["id"]: s for s in study["steps"]}["equations-of-state"]
    assert heavy["precomputed"]["reproduce"] == "fe-eos-analysis"
    cost = yaml.safe_load((ROOT / "references" / "fe-eos-analysis" / "reproduce" / "cost.yaml").read_text())
    assert cost["core_minutes"] >= 10


# ------------------------------------------------------------------------------------------------ fe-pw-spin-inputs

FE = "fe-pw-spin-inputs"


def test_fe_reference_input_passes(tmp_path):
    shutil.copyfile(entry(FE).reference_dir / "pw.in", tmp_path / "pw.in")
    assert grade_dir(FE, tmp_path).passed


def test_fe_grader_windows_are_the_selected_candidates():
    """The two-sided windows of the grader are the values the convergence study selected (reference.yaml)."""
    ref = entry(FE).reference().values
    checks = {c.id: c for c in entry(FE).grader().checks}
    assert checks["ecutwfc"].params["min"] == checks["ecutwfc"].params["max"] == ref["ecutwfc_min_ry"].value
    assert checks["ecutrho"].params["min"] == checks["ecutrho"].params["max"] == ref["ecutrho_min_ry"].value
    mesh = ref["kmesh_min"].value
    assert checks["kpoints"].params["min_mesh"] == checks["kpoints"].params["max_mesh"] == mesh
    assert checks["degauss"].params["min"] == checks["degauss"].params["max"] == ref["degauss_ry"].value


def test_fe_candidate_lists_in_the_prompt_hold_the_selected_values():
    text = entry(FE).prompt(Condition.SR)
    ref = entry(FE).reference().values
    assert f"{ref['ecutwfc_min_ry'].value:g}," in text and f"{ref['ecutrho_min_ry'].value:g}," in text
    assert f"{ref['kmesh_min'].value[0]}," in text


def test_fe_one_atom_cube_is_another_crystal(oracle_dirs, tmp_path):
    """ibrav = 1 with the one atom is simple cubic iron: the structure check fails, the mesh check does not care."""
    sub = shutil.copytree(oracle_dirs[FE], tmp_path / "sub")
    (sub / "pw.in").write_text((sub / "pw.in").read_text().replace("ibrav = 3", "ibrav = 1"))
    assert failed(grade_dir(FE, sub)) == {"structure"}


# ------------------------------------------------------------------------------------------------ fe-moment

FM = "fe-moment"


@pytest.mark.slow
@needs_pw
def test_fe_moment_oracle_runs_pw_and_passes(oracle_dirs):
    sub = oracle_dirs[FM]
    assert (sub / "fm" / "pw.out").is_file() and (sub / "nm" / "pw.out").is_file()
    report = grade_dir(FM, sub)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ fe-eos-analysis

EOS = "fe-eos-analysis"


def _staged(xc: str, state: str) -> list[tuple[float, float, float]]:
    """(V per atom in A^3, E per atom in eV, total magnetization per atom) of each staged run of one curve."""
    out = []
    for path in sorted(entry(EOS).workspace_dir.glob(f"fe_{xc}_{state}_*.out")):
        text = path.read_text()
        v = float(re.search(r"unit-cell volume\s+=\s+(\S+)", text).group(1)) * BOHR_A**3
        e = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)", text, re.M)[-1]) * RY_EV
        m = re.findall(r"total magnetization\s+=\s+(\S+)", text)
        out.append((v, e, float(m[-1]) if m else 0.0))
    return out


def test_eos_staged_runs_are_the_prompts_calculations():
    """66 converged one-atom runs at the shared settings, eleven volumes per curve, moments only where asked."""
    files = sorted(entry(EOS).workspace_dir.glob("fe_*.out"))
    assert len(files) == 66 == len(entry(EOS).spec.workspace)
    for path in files:
        text = path.read_text()
        assert "convergence has been achieved" in text and "number of atoms/cell      =            1" in text
        assert "kinetic-energy cutoff     =      45.0000  Ry" in text
        assert "charge density cutoff     =     360.0000  Ry" in text
        assert ("total magnetization" in text) == ("_fm_" in path.name)
    for xc in ("pbe", "lda"):
        for state in ("bcc_fm", "bcc_nm", "fcc_nm"):
            assert len({round(v, 3) for v, _, _ in _staged(xc, state)}) == 11


def test_eos_reference_physics():
    """PBE puts ferromagnetic bcc lowest, with a larger lattice constant and a softer lattice than LDA; the
    ferromagnet carries a moment of about 2 muB in both; every fitted minimum lies inside its volume range."""
    ref = {k: v.value for k, v in entry(EOS).reference().values.items()}
    assert ref["pbe_dE_fcc_nm_meV"] > 0 and ref["pbe_dE_bcc_nm_meV"] > 0
    assert ref["lda_a0_bcc_fm_angstrom"] < ref["pbe_a0_bcc_fm_angstrom"]
    assert ref["lda_B0_bcc_fm_GPa"] > ref["pbe_B0_bcc_fm_GPa"]
    assert ref["lda_dE_fcc_nm_meV"] < ref["pbe_dE_fcc_nm_meV"]
    for xc in ("pbe", "lda"):
        assert 1.8 < ref[f"{xc}_moment_at_V0_muB"] < 2.6
        vs = [v for v, _, _ in _staged(xc, "bcc_fm")]
        assert min(vs) < ref[f"{xc}_a0_bcc_fm_angstrom"] ** 3 / 2 < max(vs)


def test_eos_common_errors_fail(tmp_path):
    """Answers built from the staged outputs the wrong way fail the checks they touch."""
    base = reference_answer(EOS)
    pbe = np.array(_staged("pbe", "bcc_fm"))
    # a0 taken as the cube root of the volume per atom (the one-atom cube, not the bcc cube)
    v0 = base["pbe"]["a0_bcc_fm_angstrom"] ** 3 / 2
    wrong = copy.deepcopy(base)
    wrong["pbe"]["a0_bcc_fm_angstrom"] = v0 ** (1 / 3)
    assert failed(grade_answer(EOS, wrong, tmp_path / "a")) == {"pbe-a0"}
    # energy differences left in Ry (in meV of Ry)
    wrong = copy.deepcopy(base)
    for key in ("dE_fcc_nm_meV", "dE_bcc_nm_meV"):
        wrong["lda"][key] = base["lda"][key] / RY_EV
    assert failed(grade_answer(EOS, wrong, tmp_path / "b")) == {"lda-de-fcc", "lda-de-nm"}
    # the phase energies compared across the two functionals (different pseudopotentials)
    wrong = copy.deepcopy(base)
    lda_fcc = min(e for _, e, _ in _staged("lda", "fcc_nm"))
    wrong["pbe"]["dE_fcc_nm_meV"] = (lda_fcc - pbe[:, 1].min()) * 1000
    assert failed(grade_answer(EOS, wrong, tmp_path / "c")) == {"pbe-de-fcc"}
    # the magnetic energy at a common volume (the ferromagnet's V0) instead of between the two minima
    nm = np.array(_staged("pbe", "bcc_nm"))
    e_nm_at_v0 = np.polyval(np.polyfit(nm[:, 0], nm[:, 1], 3), v0)
    e_fm_at_v0 = np.polyval(np.polyfit(pbe[:, 0], pbe[:, 1], 3), v0)
    wrong = copy.deepcopy(base)
    wrong["pbe"]["dE_bcc_nm_meV"] = (e_nm_at_v0 - e_fm_at_v0) * 1000
    assert "pbe-de-nm" in failed(grade_answer(EOS, wrong, tmp_path / "d"))


def test_eos_oracle_matches_reference_closely(oracle_dirs):
    """The oracle (scipy fit in the four parameters) and the reference (a cubic in V^(-2/3)) agree far inside
    the tolerances: the tolerances admit other equations of state, not other data."""
    got, ref = read_answer(oracle_dirs[EOS]), reference_answer(EOS)
    for xc in ("pbe", "lda"):
        assert abs(got[xc]["a0_bcc_fm_angstrom"] - ref[xc]["a0_bcc_fm_angstrom"]) < 5e-4
        assert abs(got[xc]["B0_bcc_fm_GPa"] / ref[xc]["B0_bcc_fm_GPa"] - 1) < 0.01
        for key in ("dE_fcc_nm_meV", "dE_bcc_nm_meV"):
            assert abs(got[xc][key] - ref[xc][key]) < 0.5


def test_eos_prompt_states_the_fit_and_the_units():
    for condition in (Condition.SF, Condition.SR):
        text = entry(EOS).prompt(condition)
        assert "third-order Birch–Murnaghan" in text and "meV per atom" in text and "interpolated linearly" in text
