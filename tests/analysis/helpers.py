"""Hand-made results with known answers, as rows of the store's schema."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from cmb.analysis import Analysis, AnalysisOptions
from cmb.store import CHECKS_SCHEMA, RUNS_SCHEMA

T0 = datetime(2026, 5, 1, tzinfo=UTC)
KINDS = {"t1": "input-preparation", "t2": "output-analysis", "t3": "run-and-analyze", "w1": "workflow"}


def run(
    agent: str,
    task: str,
    condition: str,
    trial: int,
    outcome: str,
    *,
    sweep: str = "s",
    model_cost: float | None = 0.10,
    hours: float = 0.5,
    age_days: float = 0.0,
    **over: Any,
) -> dict[str, Any]:
    """One runs row. outcome: 'P' pass, 'V' audit-voided pass, or a failure class ('scientific', ...)."""
    wf = condition in ("WF", "WR")
    passed = outcome == "P"
    voided = outcome == "V"
    start = T0 + timedelta(hours=trial) - timedelta(days=age_days)
    seconds = hours * 3600
    row: dict[str, Any] = {
        "schema_version": 1,
        "key": f"{sweep}/{agent}/{task}/{condition}/{trial}",
        "sweep": sweep,
        "agent": agent,
        "model": agent.split("@")[-1],
        "task": task,
        "study": "st",
        "kind": KINDS.get(task, "output-analysis"),
        "condition": condition,
        "trial": trial,
        "started_at": start,
        "finished_at": start + timedelta(seconds=seconds),
        "exit_reason": "completed",
        "retries": 0,
        "t_queue_s": 5.0,
        "t_setup_s": 0.0,
        "t_agent_s": seconds,
        "t_collect_s": 0.0,
        "t_grade_s": 0.0,
        "requests": 3,
        "input_tokens": 1000,
        "output_tokens": 100,
        "cached_tokens": 200,
        "reasoning_tokens": 0,
        "model_cost_usd": model_cost,
        "price_table": None if model_cost is None else "p1",
        "compute_cost_usd": None,
        "cpus": 128.0 if wf else 4.0,
        "memory_gib": 16.0,
        "node_exclusive": wf,
        "time_limit_s": 3600,
        "audit_passed": not voided,
        "raw_score": 1.0 if passed or voided else 0.5,
        "gated_score": 1.0 if passed else (0.0 if voided else 0.5),
        "partial_score": None,
        "n_checks": 2,
        "passed": passed,
        "failure_class": None if passed or voided else outcome,
        "task_hash": f"h-{task}",
        "grader_hash": "g",
        "harness_version": "1.0",
    }
    row.update(over)
    return row


def check(
    r: dict[str, Any], check_id: str, passed: bool, category: str = "scientific", msg: str = ""
) -> dict[str, Any]:
    """One checks row of the attempt `r`."""
    return {
        "schema_version": 1,
        "key": r["key"],
        "sweep": r["sweep"],
        "agent": r["agent"],
        "task": r["task"],
        "condition": r["condition"],
        "trial": r["trial"],
        "check_id": check_id,
        "check_type": "numeric.scalar",
        "category": category,
        "passed": passed,
        "credit": 1.0 if passed else 0.0,
        "message": msg or ("ok" if passed else f"{check_id} wrong"),
        "run_id": r.get("run_id"),
    }


def table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows as an Arrow table of `schema`; missing fields are null."""
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema=schema)


def analysis(runs: list[dict[str, Any]], checks: list[dict[str, Any]] | None = None, **options: Any) -> Analysis:
    """An Analysis over in-memory rows (no store)."""
    lf = pl.from_arrow(table(runs, RUNS_SCHEMA))
    assert isinstance(lf, pl.DataFrame)
    ck = None
    if checks is not None:
        frame = pl.from_arrow(table(checks, CHECKS_SCHEMA))
        assert isinstance(frame, pl.DataFrame)
        ck = frame.lazy()
    return Analysis(lf.lazy(), ck, AnalysisOptions(**options))


def write_store(home: Path, runs: list[dict[str, Any]], checks: list[dict[str, Any]] | None = None) -> Path:
    """Write one Parquet file per attempt in the store layout (as the sweep's writer does)."""
    for i, r in enumerate(runs):
        folder = home / "results" / "runs" / f"sweep={r['sweep']}"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(table([r], RUNS_SCHEMA), folder / f"a{i:05d}.parquet")
    by_key: dict[str, list[dict[str, Any]]] = {}
    for c in checks or []:
        by_key.setdefault(c["key"], []).append(c)
    for i, (_, rows) in enumerate(sorted(by_key.items())):
        folder = home / "results" / "checks" / f"sweep={rows[0]['sweep']}"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(table(rows, CHECKS_SCHEMA), folder / f"c{i:05d}.parquet")
    return home


def known_sweep() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two agents, four tasks, all four conditions, with answers computed by hand in the tests.

    A@m SF: t1 P F F, t2 P P P, t3 P P F   (6/9)     B@n SF: t1 F F F, t2 P P V, t3 P P P   (5/9 gated, 6/9 raw)
    A@m SR: t1 P, t2 F(time-limit)          A@m WF: w1 P P F    A@m WR: w1 F F F (time-limit)
    Dropped: one infrastructure, one stale task version, one stale harness.
    Model cost: A 0.10 per attempt, B unpriced. Single tasks 4 CPUs for 0.5 h, workflows a node for 0.5 h.
    """
    a, b = "A@m", "B@n"
    runs = [
        run(a, "t1", "SF", 0, "P"),
        run(a, "t1", "SF", 1, "scientific"),
        run(a, "t1", "SF", 2, "scientific"),
        run(a, "t2", "SF", 0, "P"),
        run(a, "t2", "SF", 1, "P"),
        run(a, "t2", "SF", 2, "P"),
        run(a, "t3", "SF", 0, "P"),
        run(a, "t3", "SF", 1, "P"),
        run(a, "t3", "SF", 2, "operational/software"),
        run(b, "t1", "SF", 0, "scientific", model_cost=None),
        run(b, "t1", "SF", 1, "scientific", model_cost=None),
        run(b, "t1", "SF", 2, "operational/format", model_cost=None),
        run(b, "t2", "SF", 0, "P", model_cost=None),
        run(b, "t2", "SF", 1, "P", model_cost=None),
        run(b, "t2", "SF", 2, "V", model_cost=None),
        run(b, "t3", "SF", 0, "P", model_cost=None),
        run(b, "t3", "SF", 1, "P", model_cost=None),
        run(b, "t3", "SF", 2, "P", model_cost=None),
        run(a, "t1", "SR", 0, "P"),
        run(a, "t2", "SR", 0, "time-limit"),
        run(a, "w1", "WF", 0, "P"),
        run(a, "w1", "WF", 1, "P"),
        run(a, "w1", "WF", 2, "scientific"),
        run(a, "w1", "WR", 0, "time-limit"),
        run(a, "w1", "WR", 1, "time-limit"),
        run(a, "w1", "WR", 2, "time-limit"),
        # dropped: infrastructure, a stale task version (older), a stale harness (older)
        run(a, "t1", "SF", 3, "infrastructure"),
        run(a, "t2", "SF", 3, "scientific", task_hash="h-t2-old", age_days=2),
        run(b, "t3", "SF", 3, "scientific", harness_version="0.9", model_cost=None, age_days=3),
    ]
    by_key = {r["key"]: r for r in runs}

    def k(agent: str, task: str, trial: int) -> dict[str, Any]:
        return by_key[f"s/{agent}/{task}/SF/{trial}"]

    checks = []
    # t1: both agents fail the vdW check in most failing runs; B once fails the format check instead.
    for trial in (1, 2):
        checks += [check(k(a, "t1", trial), "fmt", True, "format"), check(k(a, "t1", trial), "vdw", False)]
    for trial in (0, 1):
        checks += [check(k(b, "t1", trial), "fmt", True, "format"), check(k(b, "t1", trial), "vdw", False)]
    checks += [check(k(b, "t1", 2), "fmt", False, "format"), check(k(b, "t1", 2), "vdw", True)]
    # t3: only A fails, on the cutoff check: not shared.
    checks += [check(k(a, "t3", 2), "fmt", True, "format"), check(k(a, "t3", 2), "cutoff", False, "software")]
    # a passing run's checks all pass
    checks += [check(k(a, "t1", 0), "fmt", True, "format"), check(k(a, "t1", 0), "vdw", True)]
    return runs, checks
