"""The Parquet store, source of truth: small files of finished attempts, hive-partitioned by sweep.

Layout under the store root (CMB_HOME/results by default)::

    runs/sweep=<name>/<key digest>-<write id>.parquet      one row per attempt of the write
    checks/sweep=<name>/<key digest>-<write id>.parquet    one row per check of those attempts

Writes are group-committed: attempts that finish while another write is on disk share the next file, so a busy
launcher writes one file per batch instead of one per attempt, and `write` still returns only once its record
is durable. Every file is written under a hidden temporary name, flushed to disk and renamed into place, so a
reader (or a crash) never sees half a file. The checks file is renamed first: a runs row is the commit mark of an
attempt, and checks rows without one are ignored. Files are read with the explicit schema (a column an older file
lacks reads as null) and deduplicated on the attempt key. `compact` folds a sweep's small files into one.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
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


# A batch's file holds a few rows and is written while its attempts wait: zstd's set-up for each of the 50 column
# chunks costs 2 ms a file and saves nothing at that size, snappy a third of that. Compaction rewrites with zstd.
BATCH_COMPRESSION = "snappy"


def write_parquet_atomic(table: pa.Table, path: Path, compression: str = "zstd") -> None:
    """Write a table under a hidden temporary name in the same folder, fsync it, and rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        pq.write_table(table, tmp, compression=compression)
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


@dataclass
class _Pending:
    """One record waiting for the group commit that makes it durable."""

    record: RunRecord
    spec_hash: str | None
    run_id: str = ""
    done: bool = False
    error: BaseException | None = None


class ParquetStore(ResultStore):
    """Parquet files under `root`, readable by any tool that understands hive partitions."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._queue: list[_Pending] = []
        self._writing = False
        self._turn = threading.Condition()

    def _dir(self, table: str, sweep: str) -> Path:
        return self.root / table / f"sweep={sweep}"

    def files(self, table: str, sweep: str | None = None) -> list[Path]:
        """The committed files of a table (temporary files, hidden, are never listed)."""
        pattern = f"sweep={sweep}" if sweep is not None else "sweep=*"
        return sorted(p for p in (self.root / table).glob(f"{pattern}/*.parquet") if not p.name.startswith("."))

    def write(self, record: RunRecord, *, spec_hash: str | None = None) -> str:
        """Store the record; returns once it is durable, in a file shared with the records of concurrent writers.

        The first writer to find the disk free writes every record queued by then (its own included); the others
        wait for the write that carries theirs. If that write fails, each of its writers gets the error.
        """
        mine = _Pending(record, spec_hash)
        with self._turn:
            self._queue.append(mine)
            while not mine.done:
                if self._writing:
                    self._turn.wait()
                    continue
                batch, self._queue, self._writing = self._queue, [], True
                self._turn.release()
                try:
                    self._write_batch(batch)
                except BaseException as exc:  # every record of the batch shares its fate
                    for pending in batch:
                        pending.error = exc
                finally:
                    self._turn.acquire()
                    self._writing = False
                    for pending in batch:
                        pending.done = True
                    self._turn.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.run_id

    def _write_batch(self, batch: list[_Pending]) -> None:
        """Write the checks files, then the runs files (the commit mark), one of each per sweep in the batch."""
        written_at = now_utc()
        by_sweep: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        for pending in batch:
            pending.run_id = new_run_id()
            row, checks = record_rows(pending.record, pending.spec_hash, pending.run_id, written_at)
            runs, checks_rows = by_sweep.setdefault(pending.record.key.sweep, ([], []))
            runs.append(row)
            checks_rows.extend(checks)
        for sweep, (runs, checks_rows) in by_sweep.items():
            digest = hashlib.sha256(runs[0]["key"].encode()).hexdigest()[:12]
            name = f"{digest}-{runs[0]['run_id']}.parquet"
            if checks_rows:
                table = pa.Table.from_pylist(checks_rows, schema=CHECKS_SCHEMA)
                write_parquet_atomic(table, self._dir(CHECKS, sweep) / name, BATCH_COMPRESSION)
            table = pa.Table.from_pylist(runs, schema=RUNS_SCHEMA)
            write_parquet_atomic(table, self._dir(RUNS, sweep) / name, BATCH_COMPRESSION)

    def _read(self, table: str, files: list[Path], columns: list[str] | None = None) -> pl.DataFrame:
        schema = SCHEMAS[table]
        if not files:
            frame = empty_frame(schema)
            return frame.select(columns) if columns else frame
        import pyarrow.dataset as ds  # here: it loads pandas, which a launcher that only writes never needs

        dataset = ds.dataset([str(f) for f in files], schema=schema, format="parquet")
        read = pl.from_arrow(dataset.to_table(columns=columns))
        assert isinstance(read, pl.DataFrame)
        return read

    def runs(self, sweep: str | None = None, *, dedupe: bool = True) -> pl.DataFrame:
        """The runs table, with the explicit schema, deduplicated on the attempt key unless told otherwise."""
        frame = self._read(RUNS, self.files(RUNS, sweep))
        return dedupe_runs(frame) if dedupe else frame

    def new_runs(self, sweep: str, cursor: set[str]) -> pl.DataFrame:
        """Rows of the runs files not read through this cursor before (the cursor keeps their names)."""
        new = [f for f in self.files(RUNS, sweep) if f.name not in cursor]
        frame = self._read(RUNS, new)
        cursor.update(f.name for f in new)
        return frame

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
        if len(run_files) <= 1 and len(check_files) <= 1:  # nothing to fold; still count the attempts kept
            return len(run_files), dedupe_runs(self._read(RUNS, run_files)).height if run_files else 0
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
