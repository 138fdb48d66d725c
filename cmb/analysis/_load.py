"""Read the runs and checks tables of the Parquet store into polars, lazily, with the explicit schema."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pyarrow as pa

from cmb.store import CHECKS_SCHEMA, RUNS_SCHEMA, ParquetStore, empty_frame


class AnalysisError(Exception):
    """The store holds nothing to analyse for the request (unknown sweep, empty store, missing table)."""


def polars_schema(schema: pa.Schema) -> pl.Schema:
    """The polars schema equivalent to an Arrow schema of the store."""
    return empty_frame(schema).schema


RUNS = polars_schema(RUNS_SCHEMA)
CHECKS = polars_schema(CHECKS_SCHEMA)
# The columns the analysis reads; the others (the full record as JSON above all) are never loaded.
RUN_COLUMNS: tuple[str, ...] = (
    "key", "sweep", "agent", "model", "task", "kind", "condition", "trial", "started_at", "finished_at",
    "written_at", "run_id", "t_setup_s", "t_agent_s", "t_collect_s", "t_grade_s", "input_tokens", "output_tokens",
    "cached_tokens", "model_cost_usd", "cpus", "node_exclusive", "audit_passed", "raw_score", "gated_score", "passed",
    "failure_class", "task_hash", "grader_hash", "harness_version", "compute_cost_usd", "held_s", "cpu_s",
    "peak_memory_bytes", "compute_price_sheet",
)  # fmt: skip
CHECK_COLUMNS: tuple[str, ...] = (
    "key", "sweep", "condition", "run_id", "check_id", "check_type", "category", "passed", "message",
)  # fmt: skip
INFRASTRUCTURE = "infrastructure"


def _store(home: Path) -> ParquetStore:
    # The store's own listing: committed files only (writers rename hidden temporary files into place).
    return ParquetStore(home / "results")


def list_sweeps(home: Path) -> list[str]:
    """Sweep ids with at least one committed runs file under `home` (CMB_HOME)."""
    return _store(home).sweeps()


def _files(home: Path, table: str, sweeps: Sequence[str]) -> list[Path]:
    store = _store(home)
    return [f for sweep in sweeps for f in store.files(table, sweep)]


def _scan(files: list[Path], schema: pl.Schema, sweeps: Sequence[str]) -> pl.LazyFrame:
    # The sweep is a column of every file as well as the partition name, so the hive part is not re-added;
    # a column an older file lacks reads as null, and columns the analysis does not need are never read.
    keep = RUN_COLUMNS if schema is RUNS else CHECK_COLUMNS
    wanted = pl.Schema({name: dtype for name, dtype in schema.items() if name in keep})
    lf = pl.scan_parquet(
        files,
        schema=wanted,
        hive_partitioning=False,
        missing_columns="insert",
        extra_columns="ignore",
    )
    return lf.filter(pl.col("sweep").is_in(list(sweeps)))


def scan_runs(home: Path, sweeps: Sequence[str]) -> pl.LazyFrame:
    """Every stored runs row of `sweeps` (all writes of a key; see `dedupe_runs`), without the heavy columns."""
    missing = [s for s in sweeps if not _files(home, "runs", [s])]
    if missing:
        known = ", ".join(list_sweeps(home)) or "none"
        raise AnalysisError(f"no results for sweep {', '.join(missing)} under {home} (sweeps there: {known})")
    return _scan(_files(home, "runs", sweeps), RUNS, sweeps)


def dedupe_runs(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per attempt key, decided as the store's reader (`cmb.store.dedupe_runs`) decides.

    A non-infrastructure record beats an infrastructure one, then the latest finished, then the latest written.
    Keys are unique in a compacted store, so that case costs one pass over the keys' hashes (distinct hashes mean
    distinct keys; a collision only sends the frame down the exact path); only duplicated keys are ranked (the
    store's function sorts the whole frame, which is what makes it slow on a million rows).
    """
    keys = runs.get_column("key")
    if keys.hash().n_unique() == runs.height:
        return runs
    duplicated = keys.is_duplicated()
    if not duplicated.any():
        return runs
    agent_record = (pl.col("failure_class") != INFRASTRUCTURE).fill_null(True).alias("_agent_record")
    winners = (
        runs.filter(duplicated)
        .with_columns(agent_record)
        .sort(["_agent_record", "finished_at", "written_at"], nulls_last=False)
        .unique(subset="key", keep="last", maintain_order=True)
        .drop("_agent_record")
    )
    return pl.concat([runs.filter(~duplicated), winners])


def dedupe_scan(runs: pl.LazyFrame) -> pl.LazyFrame:
    """`dedupe_runs` of a scan; it reads only the keys when they are unique (as in a compacted store)."""
    keys = runs.select("key").collect().get_column("key")
    if keys.hash().n_unique() == keys.len():
        return runs
    return dedupe_runs(runs.collect()).lazy()


def scan_checks(home: Path, sweeps: Sequence[str]) -> pl.LazyFrame | None:
    """The check rows of `sweeps` (all writes; join them to the kept runs on key and run_id); None if none."""
    files = _files(home, "checks", sweeps)
    if not files:
        return None
    return _scan(files, CHECKS, sweeps)
