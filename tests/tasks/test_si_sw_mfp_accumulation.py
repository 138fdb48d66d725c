"""Task si-sw-mfp-accumulation (study si-thermal-transport): kappa over mean free paths and frequencies.

The staged file is the kappa-m191919.hdf5 of si-sw-kappa-analysis (the precomputed step kappa-spectral); the
valid routes and traps are recomputed here from it with reproduce/alternatives.py rather than copied from the
fairness record, and every tolerance edge is probed on the reference answer and on the oracle's. The oracle only
reads the file, so it runs in every test session.
"""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import h5py
import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
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
    task_dir,
)

TASK = "si-sw-mfp-accumulation"
SIBLING = "si-sw-kappa-analysis"
STUDY = "si-thermal-transport"
REPRODUCE = ROOT / "references" / TASK / "reproduce"
KAPPA = entry(TASK).workspace_dir / "kappa-m191919.hdf5"
GRADED = {"l50-300k", "l50-800k", "kappa-100nm", "fraction-5thz"}


def _module(name: str) -> ModuleType:
    return reproduce_module(TASK, name)


VALUES = _module("values")
ALTERNATIVES = _module("alternatives").alternatives(KAPPA)
HAS_PHONO3PY = importlib.util.find_spec("phono3py") is not None


# ------------------------------------------------------------------------------------------------ files


def test_graded_checks():
    assert {c.id for c in entry(TASK).grader().checks} == GRADED | {"answer-file", "answer-fields"}


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(
        TASK, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/alternatives.py", "fairness.yaml",
                                            "recall.yaml")
    )  # fmt: skip


def test_reduced_prompt_keeps_every_key_unit_and_definition():
    e = entry(TASK)
    full, reduced = e.prompt(e.conditions()[0]), e.prompt(e.conditions()[1])
    assert reduced == re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S) and reduced != full
    for check in e.grader().checks:
        if check.target.field:
            assert f"`{check.target.field}`" in reduced, check.target.field
    for words in ("Λ = |v| τ", "at most Λ", "in nm", "Λ ≤ 100 nm", "W/(m·K)", "below 5 THz", "not angular"):
        assert words in reduced, words


def test_task_sits_on_the_precomputed_spectral_step_with_its_sibling():
    study = yaml.safe_load((task_dir(STUDY, TASK).parent / "study.yaml").read_text())
    step = next(s for s in study["steps"] if TASK in s.get("tasks", []))
    assert step["id"] == "kappa-spectral" and SIBLING in step["tasks"]
    assert step["precomputed"]["reproduce"] == SIBLING
    assert (ROOT / "references" / SIBLING / "reproduce" / "cost.yaml").is_file()
    assert SIBLING in (REPRODUCE / "reproduce.sh").read_text()


def test_staged_file_is_the_siblings_file():
    sibling = task_dir(STUDY, SIBLING) / "workspace" / "kappa-m191919.hdf5"
    assert KAPPA.read_bytes() == sibling.read_bytes()
    assert entry(TASK).spec.workspace == ["kappa-m191919.hdf5"]


def test_file_holds_what_the_analysis_needs():
    with h5py.File(KAPPA) as f:
        assert {"mode_kappa", "gamma", "group_velocity", "weight", "frequency", "kappa"} <= set(f)
        temps, kappa, mk = f["temperature"][:], f["kappa"][:], f["mode_kappa"][:]
        w, g = f["weight"][:], f["gamma"][:]
    assert {300.0, 800.0} <= set(temps) and w.sum() == 19**3
    for i in (int(np.flatnonzero(temps == t)[0]) for t in (300.0, 800.0)):
        assert mk[i, ..., 0].sum() / w.sum() == pytest.approx(kappa[i, 0], rel=1e-10)
        assert np.allclose(mk[i, ..., 0], mk[i, ..., 1], rtol=0, atol=1e-9 * abs(mk[i, ..., 0]).max())
        assert np.all(mk[i][g[i] <= 0] == 0) and (g[i] <= 0).sum() == 3  # the acoustic modes at Gamma


# ------------------------------------------------------------------------------------------------ baseline gates


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    e = entry(TASK)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_reference_values_follow_from_the_staged_file(tmp_path):
    ref = reference_answer(TASK)
    assert grade_answer(TASK, ref, tmp_path).passed
    computed = VALUES.values(KAPPA)
    for key, value in ref.items():
        assert value == pytest.approx(computed[key], rel=1e-5), key


def test_tolerance_edges_from_the_reference_answer(tmp_path):
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


def test_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    report = grade_answer(TASK, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    for key, value in reference_answer(TASK).items():
        assert answer[key] == pytest.approx(value, rel=1e-5), key
    assert_tolerance_edges(TASK, answer, tmp_path)


def test_oracle_passes_under_the_reduced_prompt_too(tmp_path):
    e = entry(TASK)
    report = grade_dir(TASK, run_oracle(TASK, tmp_path, e.conditions()[1]))
    assert report.passed, [c.message for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ routes and traps

VALID = [k for k in ALTERNATIVES if k != "reference" and not k.startswith("trap:")]
TRAPS = {
    "trap:kaccum-default-sampling": {"kappa-100nm"},
    "trap:lifetime-without-2pi": {"l50-300k", "l50-800k", "kappa-100nm"},
    "trap:lifetime-one-over-2pi-gamma": {"l50-300k", "l50-800k", "kappa-100nm"},
    "trap:lifetime-one-over-gamma": {"l50-300k", "l50-800k", "kappa-100nm"},
    "trap:angstrom-as-nm": {"l50-300k", "l50-800k", "kappa-100nm"},
    "trap:multiplicities-twice": GRADED,
    "trap:unweighted-irreducible-points": {"l50-300k", "l50-800k", "fraction-5thz"},
    "trap:plain-sum": {"kappa-100nm"},
    "trap:vx-of-the-irreducible-point": {"l50-300k", "l50-800k", "kappa-100nm"},
    "trap:median-of-modes-not-kappa-weighted": {"l50-300k", "l50-800k"},
    "trap:temperature-index-minus-one": {"l50-300k", "kappa-100nm"},
    "trap:temperature-index-plus-one": {"l50-300k", "kappa-100nm"},
    "trap:frequency-taken-as-angular": {"fraction-5thz"},
    "trap:percentages": {"fraction-5thz"},
}


def test_every_trap_is_listed():
    traps = {k for k in ALTERNATIVES if k.startswith("trap:")}
    expected = set(TRAPS) if HAS_PHONO3PY else set(TRAPS) - {"trap:kaccum-default-sampling"}
    assert traps == expected
    assert len(VALID) >= (13 if HAS_PHONO3PY else 11)


@pytest.mark.parametrize("case", VALID)
def test_valid_route_passes(case, tmp_path):
    report = grade_answer(TASK, dict(ALTERNATIVES[case]), tmp_path)
    assert report.passed, (case, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize("case", sorted(TRAPS))
def test_trap_fails_its_checks(case, tmp_path):
    if case not in ALTERNATIVES:
        pytest.skip("phono3py not installed")
    assert failed(grade_answer(TASK, dict(ALTERNATIVES[case]), tmp_path)) == TRAPS[case]


def test_valid_routes_sit_inside_and_traps_outside_each_tolerance_with_margin():
    present = {case: checks for case, checks in TRAPS.items() if case in ALTERNATIVES}  # phono3py routes may be absent
    assert_routes_clear_the_tolerances(TASK, ALTERNATIVES, VALID, present)


def test_fairness_record_matches_the_recomputed_routes():
    cases = {c.id: c for c in entry(TASK).fairness().cases}
    for name, answer in ALTERNATIVES.items():
        if name == "reference" or name not in ALTERNATIVES:
            continue
        case = cases[name.removeprefix("trap:")]
        assert (case.expect.value == "fail") == name.startswith("trap:"), name
        for key, value in answer.items():
            assert case.answer[key] == pytest.approx(value, rel=1e-4), (name, key)


def test_recall_fails_every_scientific_check(tmp_path):
    answer = {v.field: v.value for v in entry(TASK).recall().values}
    assert failed(grade_answer(TASK, answer, tmp_path)) == GRADED


def test_gamma_zero_modes_are_harmless_on_mode_kappa_and_break_the_rebuilt_route():
    data = VALUES.load(KAPPA)
    i = VALUES.index_of(data["temperature"], 300.0)
    g = data["gamma"][i]
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = 1 / (4 * np.pi * g)
        lam = np.linalg.norm(data["group_velocity"], axis=-1) * tau / 10
        rebuilt = float(data["kappa_unit_conversion"]) * data["heat_capacity"][i] * data["gv_by_gv"][:, :, 0] * tau / 2
    assert np.isnan(lam).sum() == 3
    modes = data["mode_kappa"][i, :, :, 0]
    assert VALUES.median_mfp(lam, modes) == pytest.approx(VALUES.values(KAPPA)["L50_300K_nm"], rel=1e-12)
    assert np.isnan(rebuilt.sum())
