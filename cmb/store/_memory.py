"""An in-memory store for tests: the same rows and the same deduplication as the Parquet store, no files."""

from __future__ import annotations

import threading
from typing import Any

import polars as pl

from cmb.models import RunRecord
from cmb.store._base import ResultStore, dedupe_checks, dedupe_runs, new_run_id, now_utc, record_rows, rows_frame
from cmb.store._schema import CHECKS_SCHEMA, RUNS_SCHEMA


class MemoryStore(ResultStore):
    """Rows kept in lists, safe to write from several threads."""

    def __init__(self) -> None:
        self._runs: list[dict[str, Any]] = []
        self._checks: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def write(self, record: RunRecord, *, spec_hash: str | None = None) -> str:
        """Append the record's rows."""
        run_id = new_run_id()
        row, checks = record_rows(record, spec_hash, run_id, now_utc())
        with self._lock:
            self._checks.extend(checks)
            self._runs.append(row)
        return run_id

    def _frame(self, rows: list[dict[str, Any]], sweep: str | None, schema: Any) -> pl.DataFrame:
        with self._lock:
            chosen = [r for r in rows if sweep is None or r["sweep"] == sweep]
        return rows_frame(chosen, schema)

    def runs(self, sweep: str | None = None, *, dedupe: bool = True) -> pl.DataFrame:
        """The runs rows, deduplicated on the key unless told otherwise."""
        frame = self._frame(self._runs, sweep, RUNS_SCHEMA)
        return dedupe_runs(frame) if dedupe else frame

    def checks(self, sweep: str | None = None) -> pl.DataFrame:
        """The checks rows of the surviving runs."""
        return dedupe_checks(self._frame(self._checks, sweep, CHECKS_SCHEMA), self.runs(sweep))

    def sweeps(self) -> list[str]:
        """Sweeps written so far."""
        with self._lock:
            return sorted({r["sweep"] for r in self._runs})
