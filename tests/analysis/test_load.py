"""Reading the Parquet store: explicit schema, one row per key, committed files only, checks of the surviving write."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cmb.analysis import Analysis, AnalysisError, dedupe_runs, list_sweeps, scan_checks, scan_runs
from cmb.models import DEFAULT_PROFILES, CheckResult, FailureClass, GradeReport, RunKey, RunRecord, Usage
from cmb.store import RUNS_SCHEMA, ParquetStore
from cmb.store import dedupe_runs as store_dedupe_runs
from tests.analysis.helpers import T0, check, run, table, write_store


def test_one_row_per_key_agent_record_beats_infrastructure_then_latest(tmp_path):
    first = run("x", "t1", "SF", 0, "scientific", run_id="w1")
    retry = run("x", "t1", "SF", 0, "P", run_id="w2")
    retry["finished_at"] = first["finished_at"] + timedelta(hours=1)
    infra_later = run("x", "t2", "SF", 0, "infrastructure", run_id="w3")
    infra_later["finished_at"] = infra_later["finished_at"] + timedelta(hours=5)
    agent_earlier = run("x", "t2", "SF", 0, "scientific", run_id="w4")
    write_store(tmp_path, [first, retry, infra_later, agent_earlier])
    assert scan_runs(tmp_path, ["s"]).collect().height == 4
    runs = dedupe_runs(scan_runs(tmp_path, ["s"]).collect()).sort("key")
    assert runs.height == 2
    assert runs["run_id"].to_list() == ["w2", "w4"]
    assert "record_json" not in runs.columns  # the heavy column is never read


def test_hidden_temporary_files_and_other_sweeps_are_ignored(tmp_path):
    write_store(tmp_path, [run("x", "t1", "SF", 0, "P"), run("x", "t1", "SF", 0, "P", sweep="other")])
    folder = tmp_path / "results" / "runs" / "sweep=s"
    pq.write_table(table([run("x", "t9", "SF", 0, "P")], RUNS_SCHEMA), folder / ".half-written.parquet")
    assert scan_runs(tmp_path, ["s"]).collect()["task"].to_list() == ["t1"]
    assert list_sweeps(tmp_path) == ["other", "s"]


def test_older_files_without_new_columns_read_as_null(tmp_path):
    old_schema = pa.schema([f for f in RUNS_SCHEMA if f.name not in ("run_id", "written_at", "spec_hash")])
    row = run("x", "t1", "SF", 0, "P")
    folder = tmp_path / "results" / "runs" / "sweep=s"
    folder.mkdir(parents=True)
    pq.write_table(table([row], old_schema), folder / "old.parquet")
    runs = dedupe_runs(scan_runs(tmp_path, ["s"]).collect())
    assert runs.height == 1 and runs["run_id"].to_list() == [None]


def test_unknown_sweep_names_the_known_ones(tmp_path):
    write_store(tmp_path, [run("x", "t1", "SF", 0, "P")])
    with pytest.raises(AnalysisError, match=r"no results for sweep nope .*sweeps there: s"):
        scan_runs(tmp_path, ["nope"])
    with pytest.raises(AnalysisError, match="sweeps there: none"):
        scan_runs(tmp_path / "empty", ["s"])
    assert scan_checks(tmp_path, ["s"]) is None


def test_checks_of_a_superseded_write_are_not_counted(tmp_path):
    """Two agents fail t1 on 'vdw' in their surviving writes; a stale write of y failing 'cutoff' is ignored."""
    x = run("x", "t1", "SF", 0, "scientific", run_id="x1")
    y_old = run("y", "t1", "SF", 0, "scientific", run_id="y1")
    y_new = run("y", "t1", "SF", 0, "scientific", run_id="y2")
    y_new["finished_at"] = y_old["finished_at"] + timedelta(hours=2)
    x_old_cutoff = {**check(x, "cutoff", False), "run_id": "x0"}  # a write of x that lost deduplication
    checks = [check(x, "vdw", False), check(y_new, "vdw", False), check(y_old, "cutoff", False), x_old_cutoff]
    write_store(tmp_path, [x, y_old, y_new], checks)
    t = Analysis.from_store(tmp_path, ["s"]).table("shared-errors")
    assert [(r["task"], r["check_id"], r["agents"]) for r in t.rows] == [("t1", "vdw", ["x", "y"])]


def test_dedupe_agrees_with_the_stores_reader():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(300):
        outcome = str(rng.choice(["P", "scientific", "infrastructure"]))
        r = run("x", f"t{rng.integers(0, 40)}", "SF", int(rng.integers(0, 3)), outcome, run_id=f"w{i}")
        r["finished_at"] = r["finished_at"] + timedelta(minutes=int(rng.integers(0, 5)))
        r["written_at"] = r["finished_at"] + timedelta(seconds=i)
        rows.append(r)
    frame = pl.from_arrow(table(rows, RUNS_SCHEMA))
    assert isinstance(frame, pl.DataFrame)
    ours = dedupe_runs(frame).sort("key")
    theirs = store_dedupe_runs(frame).sort("key")
    assert ours.height < frame.height
    assert ours["run_id"].to_list() == theirs["run_id"].to_list()


def _record(key: str, passed: bool, failure: FailureClass | None, failing_check: str = "c1") -> RunRecord:
    k = RunKey.parse(key)
    grade = None
    if failure is not FailureClass.INFRASTRUCTURE:
        checks = [
            CheckResult(id=c, type="numeric.scalar", category="scientific", passed=passed or c != failing_check,
                        credit=1.0, message="ok")
            for c in ("c0", "c1", "c2")
        ]  # fmt: skip
        score = sum(c.passed for c in checks) / 3
        grade = GradeReport(task_id=k.task, passed=passed, score=score, partial_score=score, grader_hash="g",
                            checks=checks)  # fmt: skip
    return RunRecord(
        key=k, study="st", kind="output-analysis", started_at=T0, finished_at=T0 + timedelta(minutes=10),
        exit_reason="completed", usage=Usage(model="m", model_cost_usd=None if k.agent == "u" else 0.2),
        resources=DEFAULT_PROFILES["single"], grade=grade, raw_score=1.0 if passed else 2 / 3,
        gated_score=1.0 if passed else 2 / 3, passed=passed, failure_class=failure, task_hash="th",
        grader_hash="g", harness_version="1",
    )  # fmt: skip


def test_reads_what_the_sweep_writer_writes(tmp_path):
    """Records written by ParquetStore (one file per write, retries included) analyse as expected."""
    store = ParquetStore(tmp_path / "results")
    store.write(_record("s/a/t1/SF/0", False, FailureClass.INFRASTRUCTURE))
    store.write(_record("s/a/t1/SF/0", False, FailureClass.SCIENTIFIC))  # the retry supersedes it
    store.write(_record("s/u/t1/SF/0", False, FailureClass.SCIENTIFIC))
    store.write(_record("s/a/t2/SF/0", True, None))
    store.write(_record("s/u/t2/SF/0", False, FailureClass.SCIENTIFIC, failing_check="c2"))
    a = Analysis.from_store(tmp_path, ["s"])
    assert a.epoch.loaded == 4 and a.epoch.dropped["infrastructure"] == 0
    rows = {r["agent"]: r for r in a.table("pass").rows}
    assert (rows["a"]["passes"], rows["a"]["attempts"]) == (1, 2) and rows["u"]["model_cost_usd"] is None
    shared = a.table("shared-errors").rows
    assert [(r["task"], r["check_id"], r["agents"], r["runs"]) for r in shared] == [("t1", "c1", ["a", "u"], 2)]
