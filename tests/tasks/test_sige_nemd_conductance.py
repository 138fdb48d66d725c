"""Task sige-nemd-conductance (study si-ge-interface-phonons): Kapitza conductance from the precomputed NEMD run.

The staged files are the outputs of references/sige-nemd-conductance/reproduce/reproduce.sh (the deck and data
file regenerate byte for byte from nemd_deck.py; the log echoes that deck); the valid routes and traps are
recomputed here from the staged files with reproduce/alternatives.py rather than copied from the fairness
record, and every tolerance edge is probed on the reference answer and on the oracle's. The oracle only parses
the staged files, so it runs in every test session.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

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

TASK = "sige-nemd-conductance"
STUDY = "si-ge-interface-phonons"
REPRODUCE = ROOT / "references" / TASK / "reproduce"
WORKSPACE = entry(TASK).workspace_dir
GRADED = {"heat-flux", "delta-t", "conductance"}


def test_graded_checks_and_the_ungraded_error():
    checks = {c.id for c in entry(TASK).grader().checks}
    assert checks == GRADED | {"answer-file", "answer-fields"}
    fields = next(c for c in entry(TASK).grader().checks if c.id == "answer-fields").params["fields"]
    assert "G_stderr_GW_per_m2_K" in fields


def _module(name: str) -> ModuleType:
    return reproduce_module(TASK, name)


VALUES = _module("values")
ALTERNATIVES = _module("alternatives").alternatives(WORKSPACE)
DECK = _module("nemd_deck")


def _answer(case: str) -> dict[str, Any]:
    return dict(ALTERNATIVES[case])


def _reference_answer() -> dict[str, Any]:
    """The graded reference values and the (required, ungraded) standard error."""
    err = entry(TASK).reference().values["G_stderr_GW_per_m2_K"].value
    return reference_answer(TASK) | {"G_stderr_GW_per_m2_K": err}


# ------------------------------------------------------------------------------------------------ files


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(
        TASK, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/alternatives.py",
                                            "reproduce/nemd_deck.py", "reproduce/cost.yaml", "fairness.yaml")
    )  # fmt: skip


def test_reduced_prompt_is_the_full_prompt_without_its_method_and_keeps_every_key():
    e = entry(TASK)
    full, reduced = e.prompt(e.conditions()[0]), e.prompt(e.conditions()[1])
    assert reduced == re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S)
    for check in e.grader().checks:
        if check.target.field:
            assert f"`{check.target.field}`" in reduced, check.target.field
    for words in ("W/m²", "GW/(m² K)", "T on the Si side minus T on the Ge side", "50 ps blocks"):
        assert words in reduced, words


def test_task_sits_on_the_precomputed_nemd_step_above_the_cost_floor():
    study = yaml.safe_load((task_dir(STUDY, TASK).parent / "study.yaml").read_text())
    step = next(s for s in study["steps"] if TASK in s.get("tasks", []))
    assert step["id"] == "nemd-conductance" and step.get("selected", True)
    assert step["precomputed"]["reproduce"] == TASK
    cost = yaml.safe_load((REPRODUCE / "cost.yaml").read_text())
    assert cost["cores"] == 1 and 10 <= cost["core_minutes"] <= 60


def test_staged_deck_and_cell_are_the_generators_output(tmp_path):
    d = DECK.structure()
    assert len(d[1]) == 640
    DECK.write(tmp_path, 40000, 150000, 1600000, 50000)
    for name in ("in.nemd", "sige.data"):
        assert (tmp_path / name).read_bytes() == (WORKSPACE / name).read_bytes(), name


def test_staged_log_and_profile_are_the_runs_outputs():
    log = (WORKSPACE / "log.lammps").read_text()
    assert log.startswith("LAMMPS (29 Sep 2021")
    deck = [ln for ln in (WORKSPACE / "in.nemd").read_text().splitlines() if ln and not ln.startswith("#")]
    assert all(ln in log for ln in deck)
    runs = VALUES.thermo_runs(log)
    prod = runs[-1]
    assert len(prod["Step"]) == 1601 and prod["Step"][-1] == 1600000
    assert prod["f_thot"][0] == 0 and prod["f_tcold"][0] == 0
    steps, temps = VALUES.profile_blocks(WORKSPACE)
    assert list(steps) == [50000 * (k + 1) for k in range(32)] and temps.shape == (32, 80)
    assert sum(p.stat().st_size for p in WORKSPACE.iterdir()) < 2_000_000


def test_energy_balance_and_thermostat_temperatures():
    prod = VALUES.production(WORKSPACE)
    hot, cold = (VALUES.heat_current_eV_per_ps(prod, w) for w in ("hot", "cold"))
    assert abs(hot / cold - 1) < 0.02  # steady state: what the hot slab puts in, the cold slab takes out
    # the slabs' thermo temperatures (3N - 3 degrees of freedom) sit at the set points, the cold one a little
    # above, the hot one a little below; the profile's chunk temperatures (3N, the slab's centre of mass stilled
    # by `zero yes`) read lower by 93/96
    t_hot, t_cold = prod["c_Thot"].mean(), prod["c_Tcold"].mean()
    assert 325 < t_hot < 330 < 335 and 265 < 270 < t_cold < 275
    _, temps = VALUES.profile_blocks(WORKSPACE)
    mean = temps.mean(axis=0)
    for slab, t in ((VALUES.HOT, t_hot), (VALUES.COLD, t_cold)):
        assert mean[list(slab)].mean() * 96 / 93 == pytest.approx(t, abs=2.5)


# ------------------------------------------------------------------------------------------------ baseline gates


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    e = entry(TASK)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_reference_values_follow_from_the_staged_files(tmp_path):
    ref = _reference_answer()
    assert grade_answer(TASK, ref, tmp_path).passed
    computed = VALUES.values(WORKSPACE)
    for key, value in ref.items():
        assert value == pytest.approx(computed[key], rel=1e-4), key


def test_tolerance_edges_from_the_reference_answer(tmp_path):
    assert_tolerance_edges(TASK, _reference_answer(), tmp_path)


def test_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    report = grade_answer(TASK, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    assert_tolerance_edges(TASK, answer, tmp_path)


def test_oracle_passes_under_the_reduced_prompt_too(tmp_path):
    e = entry(TASK)
    report = grade_dir(TASK, run_oracle(TASK, tmp_path, e.conditions()[1]))
    assert report.passed, [c.message for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ routes and traps

VALID = [
    k for k in ALTERNATIVES if k not in {"reference", "recall-literature"} and not k.startswith(("trap:", "info:"))
]
TRAPS = {
    "trap:one-way-flux": {"heat-flux", "conductance"},
    "trap:conventional-face-area": {"heat-flux", "conductance"},
    "trap:side-face-area": {"heat-flux", "conductance"},
    "trap:step-as-time": {"heat-flux", "conductance"},
    "trap:eV-per-ps-as-W-per-s": {"heat-flux", "conductance"},
    "trap:adjacent-plane-jump": {"delta-t", "conductance"},
    "trap:setpoint-difference": {"delta-t", "conductance"},
    "trap:mean-of-block-G": {"conductance"},
}
# measured but no failing case: with the nearly flat profiles of this short period, fits that run over the
# thermostat slabs move the drop by about 5 %, inside the spread of valid plane exclusions
HARMLESS = {"trap:thermostat-slabs-in-fits"}


def test_every_trap_is_listed():
    assert sorted(k for k in ALTERNATIVES if k.startswith("trap:")) == sorted(TRAPS.keys() | HARMLESS)
    assert len(VALID) >= 10


@pytest.mark.parametrize("case", VALID)
def test_valid_route_passes(case, tmp_path):
    report = grade_answer(TASK, _answer(case), tmp_path)
    assert report.passed, (case, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize("case", sorted(TRAPS))
def test_trap_fails_its_checks(case, tmp_path):
    assert failed(grade_answer(TASK, _answer(case), tmp_path)) == TRAPS[case]


def test_valid_routes_sit_inside_and_traps_outside_each_tolerance_with_margin():
    graded = {c.target.field for c in entry(TASK).grader().checks if c.tolerance}
    assert "G_stderr_GW_per_m2_K" not in graded
    assert_routes_clear_the_tolerances(TASK, ALTERNATIVES, VALID, TRAPS)


def test_recall_fails_on_the_run_specific_keys(tmp_path):
    answer = {v.field: v.value for v in entry(TASK).recall().values}
    assert {"heat-flux", "delta-t"} <= failed(grade_answer(TASK, answer, tmp_path))


def test_statistical_error_exceeds_the_spread_of_the_flux_routes_and_block_means_are_biased():
    ref = entry(TASK).reference().values
    g = ref["G_GW_per_m2_K"].value
    computed = VALUES.values(WORKSPACE)
    assert computed["n_blocks"] == 32
    flux_routes = [ALTERNATIVES[c]["G_GW_per_m2_K"] for c in ("hot-tally-only", "cold-tally-only", "tally-end-points")]
    assert max(abs(x - g) for x in flux_routes) < computed["G_stderr_GW_per_m2_K"]
    # the mean of single-block conductances lies far above J/dT (1/dT of noisy drops)
    assert computed["G_block_mean_GW_per_m2_K"] > g * 1.2
