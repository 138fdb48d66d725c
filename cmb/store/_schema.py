"""The results schema: a runs table (one row per attempt) and a checks table (one row per check result).

Parquet is the source of truth; these explicit Arrow schemas are used on write and on read, and their version is
stored in every row so an old file is never misread.

Versions: 1, the first; 2, the same columns, with `record_json` holding a RunRecord of version 2 (typed exit
reason, kind and audit flags). Version 1 rows read unchanged: their columns mean the same, and their records are
upgraded when loaded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pyarrow as pa

from cmb.models import RunRecord

RESULTS_SCHEMA_VERSION = 2

RUNS_SCHEMA = pa.schema(
    [
        ("schema_version", pa.int16()),
        ("key", pa.string()),
        ("sweep", pa.string()),
        ("agent", pa.string()),
        ("model", pa.string()),
        ("task", pa.string()),
        ("study", pa.string()),
        ("kind", pa.string()),
        ("condition", pa.string()),
        ("trial", pa.int32()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("exit_reason", pa.string()),
        ("retries", pa.int32()),
        ("t_queue_s", pa.float64()),
        ("t_setup_s", pa.float64()),
        ("t_agent_s", pa.float64()),
        ("t_collect_s", pa.float64()),
        ("t_grade_s", pa.float64()),
        ("requests", pa.int64()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("cached_tokens", pa.int64()),
        ("reasoning_tokens", pa.int64()),
        ("model_cost_usd", pa.float64()),  # null = unpriced model, never 0
        ("price_table", pa.string()),
        ("compute_cost_usd", pa.float64()),  # null = not priced (older records)
        ("cpus", pa.float64()),
        ("memory_gib", pa.float64()),
        ("node_exclusive", pa.bool_()),
        ("time_limit_s", pa.int64()),
        ("audit_passed", pa.bool_()),
        ("raw_score", pa.float64()),
        ("gated_score", pa.float64()),
        ("partial_score", pa.float64()),
        ("n_checks", pa.int32()),
        ("passed", pa.bool_()),
        ("failure_class", pa.string()),
        ("task_hash", pa.string()),
        ("grader_hash", pa.string()),
        ("harness_version", pa.string()),
        # Added by the sweep store; older files read these as null.
        ("spec_hash", pa.string()),  # SweepSpec.spec_hash() of the sweep that produced the row
        ("run_id", pa.string()),  # one id per write; links a runs row to its checks rows
        ("written_at", pa.timestamp("us", tz="UTC")),  # tie-break when one key was written twice
        # Metered compute (null: not measured, or a record from before metering).
        ("held_s", pa.float64()),  # wall seconds the sandbox held its resources
        ("cpu_s", pa.float64()),  # CPU seconds the sandbox's processes used
        ("peak_memory_bytes", pa.int64()),
        ("compute_source", pa.string()),  # who measured: cgroup-v1, cgroup-v2, docker
        ("compute_price_sheet", pa.string()),  # version of the compute price sheet
        ("record_json", pa.string()),  # the full RunRecord, so MLflow replay and re-analysis lose nothing
    ]
)

CHECKS_SCHEMA = pa.schema(
    [
        ("schema_version", pa.int16()),
        ("key", pa.string()),
        ("sweep", pa.string()),
        ("agent", pa.string()),
        ("task", pa.string()),
        ("condition", pa.string()),
        ("trial", pa.int32()),
        ("check_id", pa.string()),
        ("check_type", pa.string()),
        ("category", pa.string()),
        ("passed", pa.bool_()),
        ("credit", pa.float64()),
        ("message", pa.string()),
        ("run_id", pa.string()),  # the runs-table write these checks belong to
    ]
)


def run_row(
    record: RunRecord,
    *,
    spec_hash: str | None = None,
    run_id: str | None = None,
    written_at: datetime | None = None,
) -> dict[str, Any]:
    """Flatten a RunRecord into one runs-table row."""
    key, usage, t, res = record.key, record.usage, record.timings, record.resources
    grade = record.grade
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "key": str(key),
        "sweep": key.sweep,
        "agent": key.agent,
        "model": usage.model,
        "task": key.task,
        "study": record.study,
        "kind": record.kind.value,
        "condition": key.condition.value,
        "trial": key.trial,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "exit_reason": record.exit_reason.value,
        "retries": record.retries,
        "t_queue_s": t.queue,
        "t_setup_s": t.setup,
        "t_agent_s": t.agent,
        "t_collect_s": t.collect,
        "t_grade_s": t.grade,
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_tokens": usage.cached_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "model_cost_usd": usage.model_cost_usd,
        "price_table": usage.price_table,
        "compute_cost_usd": record.compute_cost_usd,
        "cpus": res.cpus,
        "memory_gib": res.memory_gib,
        "node_exclusive": res.node_exclusive,
        "time_limit_s": res.time_limit_s,
        "audit_passed": record.audit_passed,
        "raw_score": record.raw_score,
        "gated_score": record.gated_score,
        "partial_score": grade.partial_score if grade else None,
        "n_checks": len(grade.checks) if grade else None,
        "passed": record.passed,
        "failure_class": record.failure_class.value if record.failure_class else None,
        "task_hash": record.task_hash,
        "grader_hash": record.grader_hash,
        "harness_version": record.harness_version,
        "spec_hash": spec_hash,
        "run_id": run_id,
        "written_at": written_at,
        "held_s": record.compute.held_s,
        "cpu_s": record.compute.cpu_s,
        "peak_memory_bytes": record.compute.peak_memory_bytes,
        "compute_source": record.compute.source,
        "compute_price_sheet": record.compute.price_sheet,
        "record_json": record.model_dump_json(),
    }


def check_rows(record: RunRecord, *, run_id: str | None = None) -> list[dict[str, Any]]:
    """One checks-table row per check result of a graded attempt."""
    if record.grade is None:
        return []
    key = record.key
    return [
        {
            "schema_version": RESULTS_SCHEMA_VERSION,
            "key": str(key),
            "sweep": key.sweep,
            "agent": key.agent,
            "task": key.task,
            "condition": key.condition.value,
            "trial": key.trial,
            "check_id": c.id,
            "check_type": c.type,
            "category": c.category.value,
            "passed": c.passed,
            "credit": c.credit,
            "message": c.message[:500],
            "run_id": run_id,
        }
        for c in record.grade.checks
    ]
