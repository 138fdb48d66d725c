"""Study fept-anisotropy (magnetocrystalline anisotropy of L1_0 FePt): traps, physics of the references, oracles.

Tasks: soc-anisotropy-inputs (input preparation, VASP force-theorem route, graded statically) and fept-moments
(run-and-analyze, one spin-orbit pw.x run). The fairness cases, the recall baseline and the tolerance edges on
the oracle's answer run in tests/tasks/test_gates.py. The fept-moments oracle runs pw.x and is `slow`.
"""

from __future__ import annotations

import re
import shutil

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
    reference_answer,
)

STUDY = "fept-anisotropy"
HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="Quantum ESPRESSO (pw.x) not installed")
SOC, MOM = "soc-anisotropy-inputs", "fept-moments"
ALL = [SOC, MOM]
FAST_ORACLES = [SOC]


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


@pytest.mark.parametrize("task", [MOM])
def test_reference_values_pass_and_hold_at_their_tolerance_edges(task, tmp_path):
    assert grade_answer(task, reference_answer(task), tmp_path / "ref").passed
    assert_tolerance_edges(task, reference_answer(task), tmp_path)


def test_study_graph_holds_every_task():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    assert sorted(t for s in study["steps"] for t in s.get("tasks", [])) == sorted(ALL)
    anisotropy = next(s for s in study["steps"] if s["id"] == "anisotropy-energy")
    assert "soc-ground-state" in anisotropy["consumes"]


# ------------------------------------------------------------------------------------------------ soc-anisotropy-inputs


def test_soc_reference_input_set_passes(tmp_path):
    e = entry(SOC)
    stage_bundle(e, Condition.SF, tmp_path)
    for name in e.reference().files:
        if name.startswith(("INCAR", "KPOINTS", "POTCAR")):
            shutil.copyfile(e.reference_dir / name, tmp_path / name)
    report = grade_dir(SOC, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_soc_prompts_state_the_mesh_bound():
    bound = next(c for c in entry(SOC).grader().checks if c.id == "kpoints").params["max_spacing"]
    for condition in (Condition.SF, Condition.SR):
        assert f"at most {bound:g} Å⁻¹" in re.sub(r"\s+", " ", entry(SOC).prompt(condition))


# ------------------------------------------------------------------------------------------------ fept-moments


def test_moments_reference_physics_and_settings():
    """Fe carries most of the moment, Pt a small induced one; the prompt fixes the settings of the reference run."""
    ref = {k: v.value for k, v in entry(MOM).reference().values.items()}
    assert 3.0 < ref["total_moment_muB"] < 3.5 and 2.7 < ref["fe_moment_muB"] < 3.1 and 0.2 < ref["pt_moment_muB"] < 0.5
    text = entry(MOM).prompt(Condition.SR)
    for phrase in ("8×8×6", "`ecutwfc = 45` Ry", "0.007 Ry", "a = 3.853 Å and c = 3.713 Å"):
        assert phrase in text, phrase


def test_moments_common_errors_fail(tmp_path):
    base = reference_answer(MOM)
    wrong = {**base, "pt_moment_muB": base["fe_moment_muB"]}
    assert failed(grade_answer(MOM, wrong, tmp_path / "a")) == {"pt-moment"}
    wrong = {**base, "total_moment_muB": base["total_moment_muB"] / 2}
    assert failed(grade_answer(MOM, wrong, tmp_path / "b")) == {"total-moment"}


@pytest.mark.slow
@needs_pw
def test_moments_oracle_runs_pw_and_passes(oracle_dirs):
    sub = oracle_dirs[MOM]
    assert (sub / "pw.out").is_file()
    report = grade_dir(MOM, sub)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
