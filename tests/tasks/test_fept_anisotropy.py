"""Study fept-anisotropy (magnetocrystalline anisotropy of L1_0 FePt): traps, physics of the references, oracles.

Tasks: soc-anisotropy-inputs (input preparation, VASP force-theorem route, graded statically), fept-moments
(run-and-analyze, one spin-orbit pw.x run) and fept-anisotropy-energy-analysis (output analysis of the four
precomputed spin-orbit runs of the anisotropy step). The fairness cases, the recall baseline and the tolerance edges
on the oracle's answer run in tests/tasks/test_gates.py. The fept-moments oracle runs pw.x and is `slow`.
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
    assert_routes_clear_the_tolerances,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    reproduce_module,
)

STUDY = "fept-anisotropy"
HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="Quantum ESPRESSO (pw.x) not installed")
SOC, MOM, ANA = "soc-anisotropy-inputs", "fept-moments", "fept-anisotropy-energy-analysis"
ALL = [SOC, MOM, ANA]
FAST_ORACLES = [SOC, ANA]


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
    assert anisotropy["precomputed"]["reproduce"] == ANA and ANA in anisotropy["tasks"]
    cost = yaml.safe_load((ROOT / "references" / ANA / "reproduce" / "cost.yaml").read_text())
    assert cost["core_minutes"] >= 10


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


# ------------------------------------------------------------------------------------ fept-anisotropy-energy-analysis

ANA_WS = entry(ANA).workspace_dir
ANA_VALUES = reproduce_module(ANA, "values")
ANA_ROUTES = reproduce_module(ANA, "alternatives").alternatives(ANA_WS)
ANA_GRADED = {"mae", "mae-k8", "anisotropy-constant", "anisotropy-field", "easy-axis"}
ANA_VALID = [k for k in ANA_ROUTES if not k.startswith(("trap:", "info:"))]
ANA_TRAPS = {
    "trap:per-atom": {"mae", "mae-k8", "anisotropy-constant", "anisotropy-field"},
    "trap:energy-in-mry": {"mae", "mae-k8", "anisotropy-constant", "anisotropy-field"},
    "trap:sign-flipped": {"mae", "mae-k8", "anisotropy-constant", "easy-axis"},
    "trap:coarse-mesh-as-converged": {"mae", "anisotropy-constant", "anisotropy-field"},
    "trap:meshes-swapped": {"mae", "mae-k8"},
    "trap:conventional-cell-volume": {"anisotropy-constant"},
    "trap:volume-in-bohr3": {"anisotropy-constant"},
    "trap:field-without-factor-2": {"anisotropy-field"},
    "trap:absolute-magnetization": {"anisotropy-field"},
    "trap:first-iteration-energies": {"mae", "mae-k8", "anisotropy-constant", "anisotropy-field", "easy-axis"},
    "trap:internal-energy": {"mae", "mae-k8", "anisotropy-constant", "anisotropy-field"},
}


def _numeric(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "easy_axis"}


def test_analysis_files_and_reduced_prompt_keep_every_target():
    assert_entry_is_consistent(ANA, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/cost.yaml"))
    assert {c.id for c in entry(ANA).grader().checks} == ANA_GRADED | {"answer-file", "answer-fields"}
    text = re.sub(r"\s+", " ", entry(ANA).prompt(Condition.SR))
    for check in entry(ANA).grader().checks:
        if check.target.field:
            assert f"`{check.target.field}`" in text, check.target.field
    words = ("E[100] − E[001]", "positive when [001] is the easy axis", "per formula unit", "μ0·H_A = 2K / M_s")
    words += ("the volume that holds one formula unit", "total magnetization of the 12×12×9 [001] run")
    words += ("the free energies F on the lines starting with `!`",)
    for phrase in words:
        assert phrase in text, phrase


def test_analysis_staged_inputs_are_the_decks_of_the_reproduction(tmp_path):
    decks = reproduce_module(ANA, "decks")
    for n in decks.MESHES:
        for theta in decks.THETAS:
            stem = decks.name(n, theta)
            assert (ANA_WS / f"{stem}.in").read_text() == decks.pw_input(n, theta), stem
    assert sorted(p.name for p in ANA_WS.iterdir()) == sorted(entry(ANA).spec.workspace)


def test_analysis_reference_passes_and_holds_at_its_tolerance_edges(tmp_path):
    answer = {**reference_answer(ANA), "easy_axis": entry(ANA).reference().values["easy_axis"].value}
    assert grade_answer(ANA, answer, tmp_path / "ref").passed
    assert_tolerance_edges(ANA, answer, tmp_path)


def test_analysis_reference_follows_from_the_staged_outputs():
    ref = {k: v.value for k, v in entry(ANA).reference().values.items()}
    computed = ANA_VALUES.values(ANA_WS)
    for key, value in ref.items():
        if isinstance(value, str):
            assert value == computed[key], key
        else:
            assert value == pytest.approx(computed[key], rel=1e-4), key


def test_analysis_reference_physics():
    """[001] is easy on both meshes; the [100] run stays on its axis (symmetry); the moment hardly depends on the
    direction; K and the field follow from the energy by the cell volume and the moment."""
    runs = ANA_VALUES.runs(ANA_WS)
    ref = {k: v.value for k, v in entry(ANA).reference().values.items()}
    assert 1.0 < ref["mae_meV_per_fu"] < 5.0 and ref["mae_k8_meV_per_fu"] > 0 and ref["easy_axis"] == "001"
    assert abs(ref["mae_meV_per_fu"] - ref["mae_k8_meV_per_fu"]) > 0.1  # the coarse mesh is not converged
    for mesh in ("k08", "k12"):
        mz = runs[f"{mesh}_t00"]["magnetization"]
        mx = runs[f"{mesh}_t90"]["magnetization"]
        assert abs(mz[0]) < 0.01 and abs(mz[1]) < 0.01 and 3.1 < mz[2] < 3.4
        assert abs(mx[1]) < 0.01 and abs(mx[2]) < 0.01 and abs(abs(mx[0]) - mz[2]) < 0.03
        assert runs[f"{mesh}_t90"]["nks"] > runs[f"{mesh}_t00"]["nks"]  # fewer symmetries along [100]
    volume = ref["cell_volume_A3"]
    assert volume == pytest.approx(3.853**2 * 3.713 / 2, rel=1e-4)
    assert ref["mae_MJ_per_m3"] == pytest.approx(ref["mae_meV_per_fu"] * 160.21766 / volume, rel=1e-4)


def test_analysis_routes_and_traps_are_classified():
    assert sorted(k for k in ANA_ROUTES if k.startswith("trap:")) == sorted(ANA_TRAPS)
    assert len(ANA_VALID) >= 3


@pytest.mark.parametrize("case", ANA_VALID)
def test_analysis_valid_route_passes(case, tmp_path):
    report = grade_answer(ANA, ANA_ROUTES[case], tmp_path)
    assert report.passed, (case, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize("case", sorted(ANA_TRAPS))
def test_analysis_trap_fails_its_checks(case, tmp_path):
    assert failed(grade_answer(ANA, ANA_ROUTES[case], tmp_path)) == ANA_TRAPS[case]


def test_analysis_routes_clear_the_tolerances_with_margin():
    answers = {k: _numeric(v) for k, v in ANA_ROUTES.items()}
    traps = {k: v - {"easy-axis"} for k, v in ANA_TRAPS.items()}
    assert_routes_clear_the_tolerances(ANA, answers, ANA_VALID, traps)


def test_analysis_fairness_record_matches_the_recomputed_routes():
    cases = {c.id: c for c in entry(ANA).fairness().cases}
    assert set(cases) == {n.removeprefix("trap:") for n in ANA_VALID + sorted(ANA_TRAPS)} - {"reference"}
    for name in ANA_VALID + sorted(ANA_TRAPS):
        if name == "reference":
            continue
        case = cases[name.removeprefix("trap:")]
        for field, value in case.answer.items():
            got = ANA_ROUTES[name][field]
            assert value == got if isinstance(got, str) else value == pytest.approx(got, rel=1e-5), (name, field)
        if name in ANA_TRAPS:
            assert set(case.covers) == ANA_TRAPS[name]


def test_analysis_oracle_matches_the_reference(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[ANA])
    ref = reference_answer(ANA)
    for key in ("mae_meV_per_fu", "mae_k8_meV_per_fu", "mae_MJ_per_m3", "anisotropy_field_T"):
        assert answer[key] == pytest.approx(ref[key], rel=2e-3), key
    assert answer["easy_axis"] == "001"
    assert_tolerance_edges(ANA, answer, tmp_path)


def test_analysis_recall_fails(tmp_path):
    answer = {v.field: v.value for v in entry(ANA).recall().values}
    assert {"mae-k8", "anisotropy-constant", "anisotropy-field"} <= failed(grade_answer(ANA, answer, tmp_path))
