"""fe-magnetovolume-coupling (study fe-bcc-magnetism): the magnetovolume expansion, the magnetic energy at the
ferromagnet's volume and the LDA volume derivative of the moment, from 44 staged outputs of the precomputed
equations-of-state step.

The staged outputs are fe-eos-analysis's own (checked byte for byte); the valid routes and traps are recomputed
here from the staged files with reproduce/alternatives.py rather than copied from the fairness record, and every
tolerance edge is probed on the reference answer and on the oracle's. The oracle only parses the staged files.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_routes_clear_the_tolerances,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    reproduce_module,
    run_oracle,
)

TASK = "fe-magnetovolume-coupling"
SIBLING = "fe-eos-analysis"
STUDY = "fe-bcc-magnetism"
REPRODUCE = ROOT / "references" / TASK / "reproduce"
WORKSPACE = entry(TASK).workspace_dir
GRADED = {"pbe-dv", "pbe-dv-percent", "pbe-de-at-v0", "lda-dv", "lda-dv-percent", "lda-de-at-v0", "lda-dmu-dlnv"}


def _module(name: str) -> ModuleType:
    return reproduce_module(TASK, name)


VALUES = _module("values")
ALTERNATIVES = _module("alternatives").alternatives(WORKSPACE)


def _ref() -> dict[str, float]:
    return {k: v.value for k, v in entry(TASK).reference().values.items()}


def _flat(answer: dict[str, Any]) -> dict[str, float]:
    return {f"{xc}.{k}": v for xc, block in answer.items() for k, v in block.items()}


# ------------------------------------------------------------------------------------------------ files


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(
        TASK, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/alternatives.py", "fairness.yaml")
    )
    checks = {c.id for c in entry(TASK).grader().checks}
    assert checks == GRADED | {"answer-file", "answer-fields"}


def test_reduced_prompt_is_the_full_prompt_without_its_method_and_keeps_every_target():
    full, reduced = entry(TASK).prompt(Condition.SF), entry(TASK).prompt(Condition.SR)
    assert reduced != full
    assert reduced == re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S)
    text = re.sub(r"\s+", " ", reduced)
    for check in entry(TASK).grader().checks:
        if check.target.field:
            assert f"`{check.target.field.split('.')[-1]}`" in text, check.target.field
        for sentence in check.states:
            assert sentence in text, (check.id, sentence)
    for words in ("100 × (V0(FM) − V0(NM)) / V0(NM)", "E_NM(V0(FM)) − E_FM(V0(FM))", "dμ/d(ln V) = V dμ/dV",
                  "positive when the ferromagnet is larger", "positive when the ferromagnet is lower"):  # fmt: skip
        assert words in text, words


def test_staged_outputs_are_the_siblings_byte_for_byte():
    """The 44 staged outputs are copies of fe-eos-analysis's (the precomputed step's files), bcc only."""
    mine, sibling = entry(TASK), entry(SIBLING)
    assert len(mine.spec.workspace) == 44
    assert set(mine.spec.workspace) <= set(sibling.spec.workspace)
    assert all("_bcc_" in n for n in mine.spec.workspace)
    for name in mine.spec.workspace:
        assert (mine.workspace_dir / name).read_bytes() == (sibling.workspace_dir / name).read_bytes(), name
    assert sorted(p.name for p in mine.workspace_dir.iterdir()) == sorted(mine.spec.workspace)


def test_task_sits_on_the_precomputed_equations_of_state_step():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    step = {s["id"]: s for s in study["steps"]}["equations-of-state"]
    assert TASK in step["tasks"] and step["precomputed"]["reproduce"] == SIBLING
    assert entry(TASK).spec.kind.value == "output-analysis"
    cost = yaml.safe_load((ROOT / "references" / SIBLING / "reproduce" / "cost.yaml").read_text())
    assert cost["core_minutes"] >= 10


def test_siblings_grade_none_of_these_keys():
    mine = {c.reference for c in entry(TASK).grader().checks if c.reference}
    for other in ("fe-eos-analysis", "fe-bcc-fcc-transition-pressure"):
        theirs = {c.reference for c in entry(other).grader().checks if c.reference}
        assert not mine & theirs, other


# ------------------------------------------------------------------------------------------------ grading


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    stage_bundle(entry(TASK), Condition.SF, tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_reference_values_follow_from_the_staged_files(tmp_path):
    assert grade_answer(TASK, reference_answer(TASK), tmp_path).passed
    computed = VALUES.values(WORKSPACE)
    for key, value in _ref().items():
        assert value == pytest.approx(computed[key], abs=1e-9), key


def test_reference_agrees_with_the_siblings_fits():
    """The same Birch-Murnaghan minima as fe-eos-analysis: its a0 and between-minima energies follow."""
    ref, sib = _ref(), {k: v.value for k, v in entry(SIBLING).reference().values.items()}
    computed = VALUES.values(WORKSPACE)
    for xc in ("pbe", "lda"):
        assert (2 * ref[f"{xc}_V0_fm_A3"]) ** (1 / 3) == pytest.approx(sib[f"{xc}_a0_bcc_fm_angstrom"], abs=2e-5)
        assert computed[f"{xc}_dE_between_minima_meV"] == pytest.approx(sib[f"{xc}_dE_bcc_nm_meV"], abs=0.01)
        assert computed[f"{xc}_moment_at_V0_muB"] == pytest.approx(sib[f"{xc}_moment_at_V0_muB"], abs=1e-4)


def test_tolerance_edges_from_the_reference_answer(tmp_path):
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


def test_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    report = grade_answer(TASK, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    ref = reference_answer(TASK)
    for xc in ("pbe", "lda"):
        assert answer[xc]["dV_fm_minus_nm_A3"] == pytest.approx(ref[xc]["dV_fm_minus_nm_A3"], abs=1e-3)
        assert answer[xc]["dE_nm_minus_fm_at_V0_meV"] == pytest.approx(ref[xc]["dE_nm_minus_fm_at_V0_meV"], abs=0.1)
    assert_tolerance_edges(TASK, answer, tmp_path)


def test_oracle_passes_under_the_reduced_prompt_too(tmp_path):
    report = grade_dir(TASK, run_oracle(TASK, tmp_path, Condition.SR))
    assert report.passed, [c.message for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ physics


def test_reference_physics():
    """Magnetism expands both functionals' bcc lattice, PBE's more; the magnetic energy at V0(FM) exceeds the
    difference of the minima by the non-magnetic crystal's elastic energy; the LDA moment grows smoothly with
    volume, the PBE moment steeply across V0(FM)."""
    ref, computed = _ref(), VALUES.values(WORKSPACE)
    assert ref["pbe_dV_fm_minus_nm_A3"] > ref["lda_dV_fm_minus_nm_A3"] > 0
    assert ref["pbe_dE_nm_minus_fm_at_V0_meV"] > ref["lda_dE_nm_minus_fm_at_V0_meV"] > 0
    for xc in ("pbe", "lda"):
        assert ref[f"{xc}_dE_nm_minus_fm_at_V0_meV"] > computed[f"{xc}_dE_between_minima_meV"]
        fm = VALUES.read_curve(WORKSPACE, xc, "bcc_fm")
        nm = VALUES.read_curve(WORKSPACE, xc, "bcc_nm")
        assert np.all(np.diff(fm[:, 2]) > 0) and np.all(nm[:, 2] == 0)
        assert nm[0, 0] < ref[f"{xc}_V0_fm_A3"] < nm[-1, 0]  # the NM fit is interpolated at V0(FM)
    lda, pbe = (VALUES.read_curve(WORKSPACE, xc, "bcc_fm") for xc in ("lda", "pbe"))
    assert np.diff(lda[:, 2]).max() < 0.085 < 0.12 < np.diff(pbe[:, 2]).max()
    spread = ALTERNATIVES["info:pbe-dmu-dlnV-spread"]
    assert max(spread.values()) - min(spread.values()) > 1.5  # why the PBE slope is not graded


# ------------------------------------------------------------------------------------------------ routes and traps

VALID = [k for k in ALTERNATIVES if k != "reference" and not k.startswith(("trap:", "info:"))]
TRAPS = {
    "trap:volumes-in-bohr3": {"pbe-dv", "lda-dv"},
    "trap:conventional-cube": {"pbe-dv", "lda-dv"},
    "trap:volume-change-sign-flipped": {"pbe-dv", "lda-dv"},
    "trap:percent-of-fm-volume": {"pbe-dv-percent", "lda-dv-percent"},
    "trap:fraction-not-percent": {"pbe-dv-percent", "lda-dv-percent"},
    "trap:difference-of-minima": {"pbe-de-at-v0", "lda-de-at-v0"},
    "trap:energy-at-nm-volume": {"pbe-de-at-v0", "lda-de-at-v0"},
    "trap:energy-in-mry": {"pbe-de-at-v0", "lda-de-at-v0"},
    "trap:energy-sign-flipped": {"pbe-de-at-v0", "lda-de-at-v0"},
    "trap:parabola-all-runs": {"pbe-dv", "pbe-dv-percent", "lda-de-at-v0"},
    "trap:dmu-per-cubic-angstrom": {"lda-dmu-dlnv"},
    "trap:dlnmu-dlnV": {"lda-dmu-dlnv"},
    "trap:log10-volume": {"lda-dmu-dlnv"},
    "trap:per-ln-lattice-constant": {"lda-dmu-dlnv"},
}
# outside the prompt's rules and just outside the band, measured for the QC record only
INFO = {"info:moment-two-bracketing-runs", "info:absolute-magnetization", "info:parabola-5-runs"}


def test_every_route_is_classified():
    assert sorted(k for k in ALTERNATIVES if k.startswith("trap:")) == sorted(TRAPS)
    assert {k for k in ALTERNATIVES if k.startswith("info:")} == INFO | {"info:pbe-dmu-dlnV-spread"}
    assert len(VALID) >= 15


@pytest.mark.parametrize("case", VALID)
def test_valid_route_passes(case, tmp_path):
    report = grade_answer(TASK, ALTERNATIVES[case], tmp_path)
    assert report.passed, (case, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize("case", sorted(TRAPS))
def test_trap_fails_its_checks(case, tmp_path):
    assert failed(grade_answer(TASK, ALTERNATIVES[case], tmp_path)) == TRAPS[case]


def test_valid_routes_sit_inside_and_traps_outside_each_tolerance_with_margin():
    assert_routes_clear_the_tolerances(TASK, ALTERNATIVES, VALID, TRAPS)


def test_fairness_record_matches_the_recomputed_routes():
    cases = {c.id: c for c in entry(TASK).fairness().cases}
    for name in VALID + sorted(TRAPS):
        case = cases[name.removeprefix("trap:")]
        got = _flat(ALTERNATIVES[name])
        for field, value in case.answer.items():
            assert value == pytest.approx(got[field], rel=1e-5, abs=1e-9), (name, field)
        if name in TRAPS:
            assert set(case.covers) == TRAPS[name]


def test_recall_fails_every_graded_check(tmp_path):
    answer: dict[str, Any] = {"pbe": {}, "lda": {}}
    for v in entry(TASK).recall().values:
        xc, key = v.field.split(".")
        answer[xc][key] = v.value
    assert failed(grade_answer(TASK, answer, tmp_path)) == GRADED
