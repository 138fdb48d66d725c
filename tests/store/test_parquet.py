"""The Parquet store: atomic per-attempt files, hive layout, explicit schema, dedupe on read, compaction."""

from __future__ import annotations

import threading
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
