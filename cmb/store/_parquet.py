"""The Parquet store, source of truth: one small file per attempt, hive-partitioned by sweep.

Layout under the store root (CMB_HOME/results by default)::

    runs/sweep=<name>/<key digest>-<write id>.parquet      one row: the attempt
    checks/sweep=<name>/<key digest>-<write id>.parquet    one row per check of that attempt

Every file is written under a hidden temporary name, flushed to disk and renamed into place, so a reader (or a
crash) never sees half a file. The checks file is renamed first: a runs row is the commit mark of an attempt, and
checks rows without one are ignored. Files are read with the explicit schema (a column an older file lacks reads
as null) and deduplicated on the attempt key. `compact` folds a sweep's small files into one.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from cmb.models import RunRecord
from cmb.store._base import (
    KEY_COLUMNS,
    ResultStore,
    dedupe_checks,
    dedupe_runs,
    empty_frame,
    finished_keys,
    new_run_id,
    now_utc,
    record_rows,
)
from cmb.store._schema import CHECKS_SCHEMA, RUNS_SCHEMA

RUNS, CHECKS = "runs", "checks"
SCHEMAS = {RUNS: RUNS_SCHEMA, CHECKS: CHECKS_SCHEMA}
STALE_TMP_S = 3600.0  # a temporary file this old belongs to a writer that died


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write a table under a hidden temporary name in the same folder, fsync it, and rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class ParquetStore(ResultStore):
    """Per-attempt Parquet files under `root`, readable by any tool that understands hive partitions."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _dir(self, table: str, sweep: str) -> Path:
        return self.root / table / f"sweep={sweep}"

    def files(self, table: str, sweep: str | None = None) -> list[Path]:
        """The committed files of a table (temporary files, hidden, are never listed)."""
        pattern = f"sweep={sweep}" if sweep is not None else "sweep=*"
        return sorted(p for p in (self.root / table).glob(f"{pattern}/*.parquet") if not p.name.startswith("."))

    def write(self, record: RunRecord, *, spec_hash: str | None = None) -> str:
        """Write the attempt's checks file, then its runs file (the commit mark)."""
        run_id = new_run_id()
        row, checks = record_rows(record, spec_hash, run_id, now_utc())
        digest = hashlib.sha256(str(record.key).encode()).hexdigest()[:12]
        name = f"{digest}-{run_id}.parquet"
        sweep = record.key.sweep
        if checks:
            write_parquet_atomic(pa.Table.from_pylist(checks, schema=CHECKS_SCHEMA), self._dir(CHECKS, sweep) / name)
        write_parquet_atomic(pa.Table.from_pylist([row], schema=RUNS_SCHEMA), self._dir(RUNS, sweep) / name)
        return run_id

    def _read(self, table: str, files: list[Path], columns: list[str] | None = None) -> pl.DataFrame:
        schema = SCHEMAS[table]
        if not files:
            frame = empty_frame(schema)
            return frame.select(columns) if columns else frame
        dataset = ds.dataset([str(f) for f in files], schema=schema, format="parquet")
        read = pl.from_arrow(dataset.to_table(columns=columns))
        assert isinstance(read, pl.DataFrame)
        return read

    def runs(self, sweep: str | None = None, *, dedupe: bool = True) -> pl.DataFrame:
        """The runs table, with the explicit schema, deduplicated on the attempt key unless told otherwise."""
        frame = self._read(RUNS, self.files(RUNS, sweep))
        return dedupe_runs(frame) if dedupe else frame

    def checks(self, sweep: str | None = None) -> pl.DataFrame:
        """The checks rows belonging to the surviving runs rows."""
        runs = self._read(RUNS, self.files(RUNS, sweep), KEY_COLUMNS)
        return dedupe_checks(self._read(CHECKS, self.files(CHECKS, sweep)), dedupe_runs(runs))

    def done_keys(self, sweep: str) -> set[str]:
        """Finished keys, reading only the few columns needed."""
        return finished_keys(dedupe_runs(self._read(RUNS, self.files(RUNS, sweep), KEY_COLUMNS)))

    def sweeps(self) -> list[str]:
        """Sweeps with at least one committed runs file."""
        return sorted({p.parent.name.removeprefix("sweep=") for p in self.files(RUNS)})

    def compact(self, sweep: str) -> tuple[int, int]:
        """Fold a sweep's files into one per table, dropping superseded rows; returns (files before, rows kept).

        Safe next to writers: only the files listed before reading are removed, and the compacted files are
        committed before any of them goes, so a crash in between leaves duplicates that reading removes.
        """
        run_files, check_files = self.files(RUNS, sweep), self.files(CHECKS, sweep)
        if len(run_files) <= 1 and len(check_files) <= 1:
            return len(run_files), len(run_files)
        runs = dedupe_runs(self._read(RUNS, run_files))
        checks = dedupe_checks(self._read(CHECKS, check_files), runs)
        name = f"compacted-{now_utc():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}.parquet"
        if not checks.is_empty():
            write_parquet_atomic(checks.to_arrow().cast(CHECKS_SCHEMA), self._dir(CHECKS, sweep) / name)
        write_parquet_atomic(runs.to_arrow().cast(RUNS_SCHEMA), self._dir(RUNS, sweep) / name)
        for path in [*run_files, *check_files]:
            path.unlink(missing_ok=True)
        cutoff = time.time() - STALE_TMP_S
        for table in (RUNS, CHECKS):
            for tmp in self._dir(table, sweep).glob(".*.tmp"):
                if tmp.stat().st_mtime < cutoff:
                    tmp.unlink(missing_ok=True)
        return len(run_files), runs.height
