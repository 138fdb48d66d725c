"""The Parquet store: atomic per-attempt files, hive layout, explicit schema, dedupe on read, compaction."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cmb.models import FailureClass
from cmb.store import CHECKS_SCHEMA, RUNS_SCHEMA, MemoryStore, ParquetStore, ResultStore
from cmb.store._parquet import write_parquet_atomic
from tests.store.records import make_record


@pytest.fixture(params=["parquet", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ResultStore:
    return ParquetStore(tmp_path / "results") if request.param == "parquet" else MemoryStore()


def test_one_file_per_attempt_hive_partitioned_by_sweep(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    store.write(make_record("s1/a/t1/SF/0"), spec_hash="h1")
    store.write(make_record("s1/a/t1/SF/1"), spec_hash="h1")
    store.write(make_record("s2/a/t1/SR/0"), spec_hash="h2")
    assert len(list((tmp_path / "runs" / "sweep=s1").glob("*.parquet"))) == 2
    assert len(list((tmp_path / "checks" / "sweep=s1").glob("*.parquet"))) == 2
    assert store.sweeps() == ["s1", "s2"]
    # Any hive-aware reader sees the same rows.
    scanned = pl.scan_parquet(tmp_path / "runs" / "**" / "*.parquet", hive_partitioning=True).collect()
    assert sorted(scanned.get_column("sweep").to_list()) == ["s1", "s1", "s2"]


def test_rows_carry_schema_spec_hash_and_full_record(store: ResultStore) -> None:
    record = make_record("s1/a/t1/SF/0", cost=0.25)
    run_id = store.write(record, spec_hash="abc")
    runs = store.runs("s1")
    assert runs.schema == pl.from_arrow(RUNS_SCHEMA.empty_table()).schema
    row = runs.row(0, named=True)
    assert (row["spec_hash"], row["run_id"], row["model_cost_usd"], row["passed"]) == ("abc", run_id, 0.25, True)
    assert store.records("s1") == [record]
    checks = store.checks("s1")
    assert checks.height == 2 and set(checks.get_column("run_id")) == {run_id}


def test_dedupe_keeps_latest_finished_and_its_checks(store: ResultStore) -> None:
    store.write(make_record("s1/a/t1/SF/0", passed=False, finished_after_s=5))
    later = store.write(make_record("s1/a/t1/SF/0", passed=True, finished_after_s=50))
    store.write(make_record("s1/a/t1/SF/1", passed=False))
    assert store.runs("s1", dedupe=False).height == 3
    runs = store.runs("s1")
    assert runs.height == 2
    assert runs.filter(pl.col("trial") == 0).get_column("run_id").to_list() == [later]
    checks = store.checks("s1")
    assert set(checks.get_column("run_id")) == set(runs.get_column("run_id"))
    assert checks.height == 4


def test_agent_record_beats_a_later_infrastructure_record(store: ResultStore) -> None:
    good = store.write(make_record("s1/a/t1/SF/0", passed=True, finished_after_s=5))
    store.write(make_record("s1/a/t1/SF/0", passed=False, failure=FailureClass.INFRASTRUCTURE, finished_after_s=9))
    assert store.runs("s1").get_column("run_id").to_list() == [good]


def test_infrastructure_only_attempts_are_not_done(store: ResultStore) -> None:
    store.write(make_record("s1/a/t1/SF/0", passed=False, failure=FailureClass.INFRASTRUCTURE, retries=2))
    store.write(make_record("s1/a/t1/SF/1", passed=False))
    assert store.done_keys("s1") == {"s1/a/t1/SF/1"}
    assert store.has("s1/a/t1/SF/1") and not store.has("s1/a/t1/SF/0")


def test_concurrent_writers_lose_nothing(store: ResultStore) -> None:
    def write(trial_base: int) -> None:
        for t in range(trial_base, trial_base + 10):
            store.write(make_record(f"s1/a/t1/SF/{t}"))

    threads = [threading.Thread(target=write, args=(i * 10,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(store.runs("s1").get_column("trial").to_list()) == list(range(40))


def test_a_writer_killed_midway_leaves_no_visible_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ParquetStore(tmp_path)

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(pq, "write_table", crash)
    with pytest.raises(OSError):
        store.write(make_record())
    assert store.runs().height == 0
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_checks_without_a_committed_runs_row_are_ignored(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    store.write(make_record("s1/a/t1/SF/0"))
    orphan = pa.Table.from_pylist(
        [{"key": "s1/a/t1/SF/1", "sweep": "s1", "check_id": "x", "passed": True, "run_id": "nope"}],
        schema=CHECKS_SCHEMA,
    )
    write_parquet_atomic(orphan, tmp_path / "checks" / "sweep=s1" / "orphan.parquet")
    assert "nope" not in store.checks("s1").get_column("run_id").to_list()


def test_explicit_schema_on_read_fills_columns_an_old_file_lacks(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    old_schema = pa.schema([f for f in RUNS_SCHEMA if f.name not in {"spec_hash", "record_json", "run_id"}])
    row = {f.name: None for f in old_schema} | {"key": "s1/a/t1/SF/0", "sweep": "s1", "trial": 0, "passed": True}
    write_parquet_atomic(pa.Table.from_pylist([row], schema=old_schema), tmp_path / "runs" / "sweep=s1" / "old.parquet")
    runs = store.runs("s1")
    assert runs.columns == RUNS_SCHEMA.names
    assert runs.row(0, named=True)["spec_hash"] is None and runs.row(0, named=True)["passed"] is True


def test_compaction_folds_files_and_keeps_the_winners(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    for trial in range(5):
        store.write(make_record(f"s1/a/t1/SF/{trial}", passed=False, finished_after_s=1))
    winner = store.write(make_record("s1/a/t1/SF/0", passed=True, finished_after_s=99))
    store.write(make_record("s2/a/t1/SF/0"))
    before_runs, before_checks = store.runs("s1"), store.checks("s1")
    n_files, kept = store.compact("s1")
    assert (n_files, kept) == (6, 5)
    assert len(store.files("runs", "s1")) == 1 and len(store.files("checks", "s1")) == 1
    assert store.runs("s1").sort("key").equals(before_runs.sort("key"))
    assert store.checks("s1").sort("run_id", "check_id").equals(before_checks.sort("run_id", "check_id"))
    assert winner in store.runs("s1").get_column("run_id").to_list()
    assert store.runs("s2").height == 1  # other sweeps untouched
    assert store.compact("s1") == (1, 5)  # already one file: nothing folded, the attempts still counted
    assert store.compact("nothing-here") == (0, 0)
    codecs = {table: pq.ParquetFile(store.files(table, "s1")[0]).metadata.row_group(0).column(0).compression
              for table in ("runs", "checks")}  # fmt: skip
    assert codecs == {"runs": "ZSTD", "checks": "ZSTD"}  # compacted for keeps; each small batch file is snappy
    assert pq.ParquetFile(store.files("runs", "s2")[0]).metadata.row_group(0).column(0).compression == "SNAPPY"
    store.write(make_record("s1/a/t1/SF/7"))  # writing after compaction still works
    assert store.runs("s1").height == 6


def test_compaction_interrupted_before_cleanup_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ParquetStore(tmp_path)
    for trial in range(3):
        store.write(make_record(f"s1/a/t1/SF/{trial}"))
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: None)  # crash before any input is removed
    store.compact("s1")
    monkeypatch.undo()
    assert len(store.files("runs", "s1")) == 4
    assert store.runs("s1").height == 3 and store.checks("s1").height == 6


def test_empty_store_reads_empty_tables_with_the_schema(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    assert store.runs("nothing").height == 0 and store.runs("nothing").columns == RUNS_SCHEMA.names
    assert store.checks("nothing").columns == CHECKS_SCHEMA.names
    assert store.done_keys("nothing") == set() and store.sweeps() == []


def _slow_writes(monkeypatch: pytest.MonkeyPatch, delay_s: float = 0.05) -> list[int]:
    """Make each file write take `delay_s`, so concurrent writers pile up behind it; returns the rows per file."""
    from cmb.store import _parquet

    real, rows = _parquet.write_parquet_atomic, []

    def slow(table: pa.Table, path: Path, compression: str = "zstd") -> None:
        time.sleep(delay_s)
        rows.append(table.num_rows)
        real(table, path, compression)

    monkeypatch.setattr(_parquet, "write_parquet_atomic", slow)
    return rows


def test_concurrent_writers_share_files_and_each_returns_once_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ParquetStore(tmp_path)
    rows = _slow_writes(monkeypatch)
    keys = [f"s1/a/t{t}/SF/{n}" for t in range(8) for n in range(5)]
    unseen: list[str] = []

    def writer(mine: list[str]) -> None:
        for key in mine:
            store.write(make_record(key))
            if key not in ParquetStore(tmp_path).done_keys("s1"):  # a fresh reader, as a resumed driver is
                unseen.append(key)

    threads = [threading.Thread(target=writer, args=(keys[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not unseen  # every write returned only once its record was in place
    assert store.runs("s1").height == len(keys) and store.checks("s1").height == 2 * len(keys)
    assert len(store.files("runs", "s1")) < len(keys) and max(rows) > 1  # batched


def test_a_group_write_that_fails_fails_each_of_its_writers_and_commits_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the checks file and the runs file of a batch: no attempt of the batch counts as done."""
    from cmb.store import _parquet

    store = ParquetStore(tmp_path)
    store.write(make_record("s1/a/t0/SF/0"))
    real = _parquet.write_parquet_atomic
    started = threading.Event()

    def failing(table: pa.Table, path: Path, compression: str = "zstd") -> None:
        started.set()
        time.sleep(0.2)  # the other writers queue behind this write
        if path.parts[-3] == "runs":
            raise OSError(28, "No space left on device")
        real(table, path, compression)

    monkeypatch.setattr(_parquet, "write_parquet_atomic", failing)
    errors: list[BaseException] = []

    def writer(key: str) -> None:
        try:
            store.write(make_record(key))
        except OSError as exc:
            errors.append(exc)

    first = threading.Thread(target=writer, args=("s1/a/t1/SF/0",))
    first.start()
    assert started.wait(30)
    rest = [threading.Thread(target=writer, args=(f"s1/a/t2/SF/{n}",)) for n in range(4)]
    for t in rest:
        t.start()
    for t in [first, *rest]:
        t.join()
    assert len(errors) == 5  # each writer learns its record is not stored
    assert ParquetStore(tmp_path).done_keys("s1") == {"s1/a/t0/SF/0"}
    assert ParquetStore(tmp_path).checks("s1").height == 2  # orphan checks rows are ignored


def test_new_runs_returns_each_row_once(store: ResultStore) -> None:
    cursor: set[str] = set()
    store.write(make_record("s1/a/t1/SF/0"))
    assert store.new_runs("s1", cursor).height == 1
    assert store.new_runs("s1", cursor).is_empty()
    store.write(make_record("s1/a/t1/SF/1"))
    store.write(make_record("s1/a/t1/SF/0", passed=False))
    assert sorted(store.new_runs("s1", cursor).get_column("key")) == ["s1/a/t1/SF/0", "s1/a/t1/SF/1"]
