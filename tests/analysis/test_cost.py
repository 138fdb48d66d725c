"""The cost table on metered compute: recorded costs as recorded, older records estimated and marked, idle share."""

from __future__ import annotations

import json
import math
from datetime import timedelta
from pathlib import Path

import polars as pl
import pytest
import yaml

from cmb.analysis import Analysis, AnalysisOptions, CostModel, prepare
from cmb.models import DEFAULT_PROFILES, ComputePriceSheet, ComputeUsage, RunKey, RunRecord, SweepSpec, Usage
from cmb.store import RUNS_SCHEMA, ParquetStore
from tests.analysis.helpers import T0, analysis, run, table, write_store

# The estimate of records from before metering, pinned so the figures below are round.
ESTIMATE = CostModel(cpu_hour_usd=0.05, node_hour_usd=6.0)
OPTIONS = AnalysisOptions(cost=ESTIMATE)

GIB = 2**30
A = "A@m"


def metered_sweep() -> list[dict]:
    """Sweep 'm', agent A (model cost 0.10 per attempt), attempts starting at T0 + trial hours.

    SF 0  1 h,   held 3600 s, cpu 7200 s, peak 2 GiB, metered 0.25    (pass)
    SF 1  0.5 h, held 1800 s, cpu unmeasured,         metered 0.10    (fail)
    SF 2  0.5 h, before metering: estimated 0.5 h × 4 CPUs × the estimate's CPU-hour price  (pass)
    WF 0  2 h (node-exclusive), held 7200 s, cpu 36000 s, peak 40 GiB, metered 1.50  (pass)
    SF 3  600 s infrastructure (dropped), held 600 s, metered 0.01
    Span: T0 to T0 + 3 h 10 min = 11400 s; held 3600 + 1800 + 1800 (wall) + 7200 + 600 = 15000 s.
    """
    sheet = {"compute_price_sheet": "sheet-1", "compute_source": "cgroup-v2"}
    return [
        run(A, "t1", "SF", 0, "P", sweep="m", hours=1.0, held_s=3600.0, cpu_s=7200.0, peak_memory_bytes=2 * GIB,
            compute_cost_usd=0.25, **sheet),
        run(A, "t2", "SF", 1, "scientific", sweep="m", held_s=1800.0, compute_cost_usd=0.10, **sheet),
        run(A, "t3", "SF", 2, "P", sweep="m"),
        run(A, "w1", "WF", 0, "P", sweep="m", hours=2.0, held_s=7200.0, cpu_s=36000.0, peak_memory_bytes=40 * GIB,
            compute_cost_usd=1.5, **sheet),
        run(A, "t1", "SF", 3, "infrastructure", sweep="m", hours=600 / 3600, held_s=600.0, compute_cost_usd=0.01,
            **sheet),
    ]  # fmt: skip


def write_spec(home: Path, sweep: str, slots: int) -> None:
    folder = home / "sweeps" / sweep
    folder.mkdir(parents=True, exist_ok=True)
    spec = SweepSpec(name=sweep, agents=[A], max_concurrency=slots)
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False))


def _row(table, **where):
    rows = [r for r in table.rows if all(r[k] == v for k, v in where.items())]
    assert len(rows) == 1, rows
    return rows[0]


def _cells(table, agent, condition=""):
    rows = [dict(zip(table.header, c, strict=True)) for c in table.cells if c[0] == agent and c[1] == condition]
    assert len(rows) == 1
    return rows[0]


@pytest.fixture
def home(tmp_path):
    write_store(tmp_path, metered_sweep())
    write_spec(tmp_path, "m", slots=2)
    return tmp_path


def test_recorded_compute_cost_is_used_and_older_records_are_estimated():
    frame = pl.from_arrow(table(metered_sweep(), RUNS_SCHEMA))
    assert isinstance(frame, pl.DataFrame)
    df, _ = prepare(frame.lazy(), cost=ESTIMATE)
    by_key = {r["key"]: r for r in df.iter_rows(named=True)}
    assert by_key["m/A@m/t1/SF/0"]["compute_usd"] == 0.25 and by_key["m/A@m/t1/SF/0"]["compute_metered"]
    assert by_key["m/A@m/w1/WF/0"]["compute_usd"] == 1.5  # recorded, not 2 h × 6 USD per node-hour
    old = by_key["m/A@m/t3/SF/2"]
    assert not old["compute_metered"] and old["compute_usd"] == pytest.approx(0.5 * 4 * ESTIMATE.cpu_hour_usd)


def test_nan_compute_cost_is_unmetered():
    a = analysis([run(A, "t1", "SF", 0, "P", compute_cost_usd=math.nan)], n_boot=200, cost=ESTIMATE)
    r = a.all.row(0, named=True)
    assert not r["compute_metered"] and r["compute_usd"] == pytest.approx(0.5 * 4 * ESTIMATE.cpu_hour_usd)


def test_cost_table_measured_columns(home):
    t = Analysis.from_store(home, ["m"], OPTIONS).table("cost")
    sf = _row(t, agent=A, condition="SF")
    assert (sf["attempts"], sf["metered_attempts"], sf["estimated_attempts"]) == (3, 2, 1)
    assert sf["compute_cost_usd"] == pytest.approx(0.25 + 0.10 + 0.10)
    assert sf["compute_cost_estimated_usd"] == pytest.approx(0.10)
    assert sf["cpu_hours_used"] == pytest.approx(2.0) and sf["cpu_measured_attempts"] == 1
    assert sf["cpu_hours_held"] == pytest.approx((3600 + 1800) * 4 / 3600)  # the unmetered attempt has no held time
    assert sf["peak_memory_gib"] == pytest.approx(2.0)
    assert sf["model_cost_usd"] == pytest.approx(0.30) and sf["total_cost_usd"] == pytest.approx(0.75)
    assert sf["cost_per_attempt_usd"] == pytest.approx(0.25) and sf["cost_per_pass_usd"] == pytest.approx(0.375)
    wf = _row(t, agent=A, condition="WF")
    assert (wf["metered_attempts"], wf["estimated_attempts"]) == (1, 0)
    assert wf["compute_cost_usd"] == pytest.approx(1.5) and wf["cpu_hours_used"] == pytest.approx(10.0)
    assert wf["cpu_hours_held"] is None and wf["node_hours"] == pytest.approx(2.0)
    assert wf["peak_memory_gib"] == pytest.approx(40.0)
    kept = _row(t, agent="sweep total (kept)")
    assert (kept["attempts"], kept["metered_attempts"], kept["estimated_attempts"]) == (4, 3, 1)
    assert kept["compute_cost_usd"] == pytest.approx(1.95) and kept["peak_memory_gib"] == pytest.approx(40.0)
    everything = _row(t, agent="sweep total (all attempts)")
    assert (everything["attempts"], everything["metered_attempts"]) == (5, 4)
    assert everything["compute_cost_usd"] == pytest.approx(1.96)
    assert everything["cpu_hours_held"] == pytest.approx((3600 + 1800 + 600) * 4 / 3600)


def test_cost_table_marks_estimates_in_the_display(home):
    t = Analysis.from_store(home, ["m"], OPTIONS).table("cost")
    sf, wf = _cells(t, A, "SF"), _cells(t, A, "WF")
    assert sf["compute USD"] == "~0.45" and sf["metered/est"] == "2/1"
    assert sf["total USD"] == "~0.75" and sf["per attempt USD"] == "~0.25" and sf["per pass USD"] == "~0.38"
    assert sf["cpu-h used/held"] == "2.00 (1 of 3)/6.00" and sf["peak GiB"] == "2.0"
    assert wf["compute USD"] == "1.50" and wf["metered/est"] == "1/0" and wf["total USD"] == "1.60"
    assert wf["cpu-h used/held"] == "10.00/–" and wf["node-h"] == "2.00" and wf["peak GiB"] == "40.0"
    text = "\n".join(t.notes)
    assert "compute price sheet(s): sheet-1" in text
    assert "max(request, usage) × its hourly price for the held hours" in text
    assert "node-exclusive attempts at the whole node's hours" in text
    assert "~ estimated, not measured: 1 attempt(s) recorded before metering" in text
    assert t.meta["compute_price_sheets"] == ["sheet-1"]


def test_idle_share_from_the_sweep_spec(home):
    t = Analysis.from_store(home, ["m"], OPTIONS).table("cost")
    idle = t.meta["idle"]["m"]
    assert idle["slots"] == 2 and idle["span_s"] == pytest.approx(11400.0) and idle["held_s"] == pytest.approx(15000)
    assert idle["held_estimated_attempts"] == 1 and idle["attempts"] == 5
    assert idle["idle_share"] == pytest.approx(1 - 15000 / (2 * 11400))
    note = next(n for n in t.notes if n.startswith("idle share (m)"))
    assert "~34.2%" in note and "gaps between driver sessions of a resumed sweep count as idle" in note
    assert "1 attempt(s) recorded before metering count their wall time as held" in note
    json.loads(t.to_json())  # the meta serialises


def test_idle_share_unknown_without_a_spec(tmp_path):
    write_store(tmp_path, metered_sweep())
    t = Analysis.from_store(tmp_path, ["m"]).table("cost")
    assert t.meta["idle"]["m"]["idle_share"] is None
    assert "idle share (m): unknown (no sweep spec)" in t.notes
    in_memory = analysis(metered_sweep(), n_boot=200).table("cost")  # no store, so no spec either
    assert "idle share (m): unknown (no sweep spec)" in in_memory.notes


def test_idle_share_unknown_with_an_unreadable_spec(tmp_path):
    write_store(tmp_path, metered_sweep())
    (tmp_path / "sweeps" / "m").mkdir(parents=True)
    (tmp_path / "sweeps" / "m" / "spec.yaml").write_text("name: m\nmax_concurrency: 0\n")
    t = Analysis.from_store(tmp_path, ["m"]).table("cost")
    assert t.meta["idle"]["m"]["idle_share"] is None
    assert any(n.startswith("idle share (m): unknown (unreadable sweep spec") for n in t.notes)


def test_fully_metered_sweep_shows_no_estimate(tmp_path):
    rows = [r for r in metered_sweep() if r["compute_cost_usd"] is not None]
    write_store(tmp_path, rows)
    write_spec(tmp_path, "m", slots=2)
    t = Analysis.from_store(tmp_path, ["m"]).table("cost")
    assert all("~" not in cell for line in t.cells for cell in line)
    assert not any(n.startswith("~ estimated") for n in t.notes)
    assert all(r["estimated_attempts"] == 0 for r in t.rows)
    idle = t.meta["idle"]["m"]
    # held 3600 + 1800 + 7200 + 600 of two slots; SF 3 ends last, at T0 + 3 h 10 min
    assert idle["idle_share"] == pytest.approx(1 - 13200 / (2 * 11400)) and idle["held_estimated_attempts"] == 0


def test_records_the_store_writes_keep_their_metered_cost(tmp_path):
    """A RunRecord priced by the pinned sheet reads back with exactly that cost and its measured usage."""
    sheet = ComputePriceSheet.pinned()
    profile = DEFAULT_PROFILES["single"]
    usage, cost = sheet.priced(
        profile, ComputeUsage(held_s=1200.0, cpu_s=3000.0, peak_memory_bytes=3 * GIB, source="cgroup-v2")
    )
    record = RunRecord(
        key=RunKey.parse("r/a/t1/SF/0"), study="st", kind="output-analysis", started_at=T0,
        finished_at=T0 + timedelta(seconds=1200), exit_reason="completed", usage=Usage(model="m", model_cost_usd=0.2),
        resources=profile, raw_score=1.0, gated_score=1.0, passed=True, task_hash="th", grader_hash="g",
        harness_version="1", compute=usage, compute_cost_usd=cost,
    )  # fmt: skip
    ParquetStore(tmp_path / "results").write(record)
    t = Analysis.from_store(tmp_path, ["r"]).table("cost")
    r = _row(t, agent="a", condition="SF")
    assert r["compute_cost_usd"] == cost and (r["metered_attempts"], r["estimated_attempts"]) == (1, 0)
    assert r["cpu_hours_used"] == pytest.approx(3000 / 3600) and r["peak_memory_gib"] == pytest.approx(3.0)
    assert r["cpu_hours_held"] == pytest.approx(1200 * profile.cpus / 3600)
    assert t.meta["compute_price_sheets"] == [sheet.version]
