"""Every table on a sweep whose answers are computed by hand (see helpers.known_sweep)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cmb.analysis import TABLES, AnalysisError, Basis, CostModel, Epoch, bootstrap_ratio
from tests.analysis.helpers import analysis, known_sweep, run

# The compute estimate of records from before metering, pinned so the figures below are round.
ESTIMATE = CostModel(cpu_hour_usd=0.05, node_hour_usd=6.0)

A, B = "A@m", "B@n"


@pytest.fixture(scope="module")
def known():
    runs, checks = known_sweep()
    return analysis(runs, checks, n_boot=400, seed=9, cost=ESTIMATE)


def _row(table, **where):
    rows = [r for r in table.rows if all(r[k] == v for k, v in where.items())]
    assert len(rows) == 1, rows
    return rows[0]


def test_epoch_drops_infrastructure_and_stale_versions(known):
    e = known.epoch
    assert e.loaded == 29 and e.kept == 26
    assert e.dropped == {"infrastructure": 1, "stale-harness": 1, "stale-task": 1}
    assert e.harness_versions == {"s": "1.0"} and e.stale_tasks == ["t2"]
    assert "26 of 29 attempts kept" in e.summary()
    runs, checks = known_sweep()
    everything = analysis(runs, checks, epoch=Epoch.ALL, n_boot=200)
    assert everything.epoch.kept == 28 and everything.epoch.dropped["infrastructure"] == 1


def test_pass_table_rates_counts_and_cost(known):
    t = known.table("pass")
    a = _row(t, agent=A, condition="SF")
    assert (a["passes"], a["attempts"], a["tasks"]) == (6, 9, 3)
    assert a["by_kind"]["input-preparation"]["passes"] == 1 and a["by_kind"]["input-preparation"]["attempts"] == 3
    assert a["by_kind"]["output-analysis"]["pass_rate"] == 1.0
    assert a["by_kind"]["run-and-analyze"]["pass_rate"] == pytest.approx(2 / 3)
    assert a["model_cost_usd"] == pytest.approx(0.9) and a["unpriced_attempts"] == 0
    assert a["compute_cost_usd"] == pytest.approx(9 * 4 * 0.5 * ESTIMATE.cpu_hour_usd)
    b = _row(t, agent=B, condition="SF")
    assert (b["passes"], b["attempts"]) == (5, 9)
    assert b["raw_pass_rate"] == pytest.approx(6 / 9) and b["audit_voided"] == 1
    assert b["model_cost_usd"] is None and b["unpriced_attempts"] == 9  # unpriced, never $0
    assert _row(t, agent=A, condition="WF")["by_kind"]["workflow"]["passes"] == 2
    display = dict(zip(t.header, t.cells[[r["agent"] for r in t.rows].index(B)], strict=True))
    assert display["all tasks %"] == "55.6 (5/9)" and display["model USD"] == "unpriced"


def test_pass_table_ci_is_the_task_clustered_bootstrap(known):
    a = _row(known.table("pass"), agent=A, condition="SF")
    # tasks t1, t2, t3 in order: passes 1, 3, 2 of 3 each
    direct = bootstrap_ratio([1, 3, 2], [3, 3, 3], n_boot=400, seed=9)
    assert (a["ci_low"], a["ci_high"]) == (direct.low, direct.high)
    assert known.table("pass").meta["bootstrap"] == {"n_boot": 400, "seed": 9, "level": 0.95, "cluster": "task"}


def test_raw_basis_counts_audit_voided_passes():
    runs, checks = known_sweep()
    raw = analysis(runs, checks, basis=Basis.RAW, n_boot=200)
    assert _row(raw.table("pass"), agent=B, condition="SF")["passes"] == 6


def test_repeat_table_k_of_n_pass_at_k_and_consistency(known):
    r = _row(known.table("repeat"), agent=A, condition="SF")
    assert r["trials"] == 3 and r["tasks"] == 3
    assert r["by_passing"] == {"3/3": 1, "2/3": 1, "1/3": 1}
    assert r["pass_at_k"]["1"] == pytest.approx(2 / 3)
    assert r["pass_at_k"]["2"] == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert r["pass_at_k"]["3"] == pytest.approx(1.0)
    assert r["pass_hat_k"]["2"] == pytest.approx((0 + 1 + 1 / 3) / 3)
    assert r["pass_hat_k"]["3"] == pytest.approx(1 / 3)
    assert r["consistency"] == pytest.approx(1 / 3) and r["mixed_tasks"] == 2
    b = _row(known.table("repeat"), agent=B, condition="SF")
    assert b["by_passing"] == {"3/3": 1, "2/3": 1, "0/3": 1} and b["consistency"] == pytest.approx(2 / 3)
    wr = _row(known.table("repeat"), agent=A, condition="WR")
    assert wr["by_passing"] == {"0/3": 1} and wr["pass_at_k"]["3"] == 0.0
    # SR has one trial per task: not a repeat
    assert not [x for x in known.table("repeat").rows if x["condition"] == "SR"]


def test_conditions_table_matched_sets_and_differences(known):
    r = _row(known.table("conditions"), agent=A)
    c, d = r["conditions"], r["deltas"]
    # SF restricted to the tasks A also ran under SR (t1, t2): 1/3 + 3/3
    assert (c["SF"]["passes"], c["SF"]["attempts"], c["SF"]["tasks"]) == (4, 6, 2)
    assert (c["SR"]["passes"], c["SR"]["attempts"]) == (1, 2)
    assert (c["WF"]["passes"], c["WF"]["attempts"], c["WR"]["passes"]) == (2, 3, 0)
    assert d["SR-SF"]["delta"] == pytest.approx(1 / 2 - 4 / 6) and d["SR-SF"]["paired"]
    assert d["WR-WF"]["delta"] == pytest.approx(-2 / 3)
    assert d["WF-SF"]["delta"] == pytest.approx(0.0) and not d["WF-SF"]["paired"]
    assert d["WR-SR"]["delta"] == pytest.approx(-1 / 2)
    assert d["WR-WF"]["ci_low"] == d["WR-WF"]["ci_high"] == pytest.approx(-2 / 3)  # one workflow: no spread
    # B ran only SF: its SF cell covers all its tasks and it has no differences
    rb = _row(known.table("conditions"), agent=B)
    assert rb["conditions"]["SF"]["attempts"] == 9 and rb["deltas"] == {}


def test_failures_table_by_class_without_infrastructure(known):
    t = known.table("failures")
    a = _row(t, agent=A, condition="SF")
    assert a["runs"] == 9 and a["failed"] == 3
    assert a["by_class"]["scientific"] == 2 and a["by_class"]["operational/software"] == 1
    b = _row(t, agent=B, condition="SF")
    assert b["failed"] == 4 and b["by_class"]["scientific"] == 2
    assert b["by_class"]["operational/format"] == 1 and b["by_class"]["audit-voided"] == 1
    assert _row(t, agent=A, condition="WR")["by_class"]["time-limit"] == 3
    assert "infrastructure" not in t.header
    assert t.cells[-1][:4] == ["all", "", "26", "12 (46%)"]  # 3 + 4 (SF) + 1 (SR) + 1 (WF) + 3 (WR)


def test_shared_errors_table(known):
    t = known.table("shared-errors")
    assert len(t.rows) == 1
    r = t.rows[0]
    assert (r["task"], r["check_id"], r["category"]) == ("t1", "vdw", "scientific")
    assert r["agents"] == [A, B] and r["runs"] == 4 and r["failing_runs"] == 5
    assert t.meta["tasks_failed_by_2_or_more_agents"] == 1 and t.meta["condition"] == "SF"


def test_shared_errors_without_checks_says_so():
    runs, _ = known_sweep()
    t = analysis(runs, None, n_boot=200).table("shared-errors")
    assert t.rows == [] and "no check results stored" in t.notes[0]


def test_cost_table(known):
    t = known.table("cost")
    a = _row(t, agent=A, condition="SF")
    assert a["total_cost_usd"] == pytest.approx(0.9 + 0.9) and a["cost_per_pass_usd"] == pytest.approx(1.8 / 6)
    assert a["cpu_hours"] == pytest.approx(9 * 4 * 0.5) and not a["total_is_lower_bound"]
    wf = _row(t, agent=A, condition="WF")
    assert wf["node_hours"] == pytest.approx(1.5) and wf["compute_cost_usd"] == pytest.approx(
        1.5 * ESTIMATE.node_hour_usd
    )
    b = _row(t, agent=B, condition="SF")
    assert b["model_cost_usd"] is None and b["total_is_lower_bound"]
    assert b["cost_per_pass_usd"] == pytest.approx(0.9 / 5)
    kept = _row(t, agent="sweep total (kept)")
    assert kept["attempts"] == 26 and kept["unpriced_attempts"] == 9
    everything = _row(t, agent="sweep total (all attempts)")
    assert everything["attempts"] == 29 and everything["unpriced_attempts"] == 10


def test_cost_prices_are_configurable():
    runs, checks = known_sweep()
    free = analysis(runs, checks, cost={"cpu_hour_usd": 0.0, "node_hour_usd": 1.0}, n_boot=200)
    t = free.table("cost")
    assert _row(t, agent=A, condition="SF")["compute_cost_usd"] == 0.0
    assert _row(t, agent=A, condition="WR")["compute_cost_usd"] == pytest.approx(1.5)


def test_grid_table(known):
    t = known.table("grid")
    tasks = t.meta["tasks"]
    assert tasks == ["t1", "t2", "t3", "w1"]  # by kind, then id
    row = _row(t, agent=B, condition="SF", trial=2)
    assert row["outcomes"] == ["operational/format", "audit-voided", "pass", None]
    assert _row(t, agent=A, condition="WR", trial=0)["outcomes"] == [None, None, None, "time-limit"]
    assert len(t.rows) == 3 + 3 + 1 + 3 + 3  # A: SF x3, SR, WF x3, WR x3; B: SF x3
    text = t.to_text()
    assert "fa#" in text  # B SF trial 2: format, audit-voided, pass


def test_every_table_renders_text_and_json(known):
    for name in TABLES:
        t = known.table(name)
        payload = json.loads(t.to_json())
        assert payload["table"] == name and payload["meta"]["epoch"]["kept"] == 26
        assert t.title in t.to_text()
        assert all(len(c) == len(t.header) for c in t.cells)


def test_filters_and_unknown_table():
    runs, checks = known_sweep()
    only_a = analysis(runs, checks, agents=(A,), conditions=("SF", "SR"), n_boot=200)
    assert {r["agent"] for r in only_a.table("pass").rows} == {A}
    assert {r["condition"] for r in only_a.table("pass").rows} == {"SF", "SR"}
    with pytest.raises(AnalysisError, match="unknown table"):
        only_a.table("nope")


def test_repeat_with_missing_trials_averages_over_tasks_that_have_k():
    runs = [run("X", "t1", "SF", i, "P" if i < 2 else "scientific") for i in range(3)]
    runs += [run("X", "t2", "SF", i, "P") for i in range(2)]  # only two trials kept
    r = analysis(runs, n_boot=200).table("repeat").rows[0]
    assert r["k_tasks"] == {"1": 2, "2": 2, "3": 1}
    assert r["pass_at_k"]["3"] == pytest.approx(1.0) and r["pass_hat_k"]["3"] == pytest.approx(0.0)
    assert r["pass_hat_k"]["2"] == pytest.approx((1 / 3 + 1) / 2)


def test_pass_rate_equals_numpy_on_a_random_sweep():
    rng = np.random.default_rng(4)
    outcomes = rng.random((3, 20, 4)) < 0.6  # agent x task x trial
    runs = [
        run(f"ag{a}", f"t{t:02d}", "SF", k, "P" if outcomes[a, t, k] else "scientific")
        for a in range(3)
        for t in range(20)
        for k in range(4)
    ]
    table = analysis(runs, n_boot=200).table("pass")
    for a in range(3):
        assert _row(table, agent=f"ag{a}")["pass_rate"] == pytest.approx(outcomes[a].mean())


def test_nan_model_cost_is_unpriced_not_a_number():
    runs = [run("x", "t1", "SF", 0, "P", model_cost=float("nan")), run("x", "t2", "SF", 0, "P", model_cost=0.5)]
    row = _row(analysis(runs, n_boot=200).table("cost"), agent="x", condition="SF")
    assert row["model_cost_usd"] == 0.5 and row["unpriced_attempts"] == 1 and row["total_is_lower_bound"]
