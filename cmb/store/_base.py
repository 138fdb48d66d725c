"""The store interface and what every store shares: turning records into rows, and deduplication on read."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from datetime import UTC, datetime
from typing import Any

import polars as pl
import pyarrow as pa

from cmb.models import FailureClass, RunRecord
from cmb.store._schema import check_rows, run_row

# Columns enough to tell which attempts are finished (read without the heavy record_json column).
KEY_COLUMNS = ["key", "failure_class", "finished_at", "written_at", "run_id"]


def new_run_id() -> str:
    """A unique id for one write of one attempt."""
    return uuid.uuid4().hex


def record_rows(
    record: RunRecord, spec_hash: str | None, run_id: str, written_at: datetime
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The runs row and the checks rows of one write."""
    row = run_row(record, spec_hash=spec_hash, run_id=run_id, written_at=written_at)
    return row, check_rows(record, run_id=run_id)


def dedupe_runs(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per attempt key: a non-infrastructure record beats an infrastructure one, then the latest finished.

    An attempt is written twice only after a crash or a resumed sweep; the later record supersedes the earlier.
    """
    if runs.is_empty():
        return runs
    ranked = runs.with_columns(
        (pl.col("failure_class").fill_null("") != FailureClass.INFRASTRUCTURE.value).alias("_agent_record")
    )
    return (
        ranked.sort(["key", "_agent_record", "finished_at", "written_at"], nulls_last=False)
        .unique(subset=["key"], keep="last", maintain_order=True)
        .drop("_agent_record")
    )


def dedupe_checks(checks: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """The checks rows of the surviving runs rows, each once (a compaction interrupted may leave copies)."""
    if checks.is_empty() or runs.is_empty():
        return checks.clear()
    survivors = runs.select("run_id")
    return checks.join(survivors, on="run_id", how="semi").unique(
        subset=["run_id", "check_id"], keep="first", maintain_order=True
    )


def empty_frame(schema: pa.Schema) -> pl.DataFrame:
    """An empty frame with the table's columns and types."""
    frame = pl.from_arrow(pa.Table.from_batches([], schema=schema))  # not schema.empty_table(): that loads pandas
    assert isinstance(frame, pl.DataFrame)
    return frame


def rows_frame(rows: list[dict[str, Any]], schema: pa.Schema) -> pl.DataFrame:
    """Rows as a frame with the explicit schema."""
    if not rows:
        return empty_frame(schema)
    frame = pl.from_arrow(pa.Table.from_pylist(rows, schema=schema))
    assert isinstance(frame, pl.DataFrame)
    return frame


def finished_keys(runs: pl.DataFrame) -> set[str]:
    """Keys whose record is the agent's outcome; attempts that only ever failed on infrastructure run again."""
    if runs.is_empty():
        return set()
    done = runs.filter(pl.col("failure_class").fill_null("") != FailureClass.INFRASTRUCTURE.value)
    return set(done.get_column("key").to_list())


class ResultStore(ABC):
    """Where finished attempts go. Writes are per attempt and atomic; reads are deduplicated on the attempt key."""

    @abstractmethod
    def write(self, record: RunRecord, *, spec_hash: str | None = None) -> str:
        """Store one attempt's record (and its checks); returns the id of this write."""

    @abstractmethod
    def runs(self, sweep: str | None = None, *, dedupe: bool = True) -> pl.DataFrame:
        """The runs table of one sweep (or of all), one row per attempt key unless dedupe is False."""

    @abstractmethod
    def checks(self, sweep: str | None = None) -> pl.DataFrame:
        """The checks rows of the deduplicated runs of one sweep (or of all)."""

    @abstractmethod
    def sweeps(self) -> list[str]:
        """Names of the sweeps with at least one stored attempt."""

    def new_runs(self, sweep: str, cursor: set[str]) -> pl.DataFrame:
        """Runs rows (not deduplicated) not returned through `cursor` before: what a follower has yet to see.

        The cursor starts empty and belongs to the caller; the store keeps in it what it has returned.
        """
        runs = self.runs(sweep, dedupe=False)
        runs = runs.filter(~pl.col("run_id").is_in(list(cursor)))
        cursor.update(runs.get_column("run_id").to_list())
        return runs

    def done_keys(self, sweep: str) -> set[str]:
        """Keys of a sweep that need not run again (infrastructure-only records do not count)."""
        return finished_keys(self.runs(sweep))

    def has(self, key: str) -> bool:
        """Whether an attempt key has a finished, non-infrastructure record."""
        return key in self.done_keys(key.split("/", 1)[0])

    def records(self, sweep: str) -> list[RunRecord]:
        """The deduplicated RunRecords of a sweep, rebuilt from the stored JSON."""
        runs = self.runs(sweep)
        return [RunRecord.model_validate_json(text) for text in runs.get_column("record_json").to_list() if text]

    def run_ids(self, sweep: str) -> dict[str, str]:
        """Attempt key -> id of the write that survives deduplication."""
        runs = self.runs(sweep)
        return dict(zip(runs.get_column("key").to_list(), runs.get_column("run_id").to_list(), strict=True))


def now_utc() -> datetime:
    """The current time, timezone-aware."""
    return datetime.now(UTC)
