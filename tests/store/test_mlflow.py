"""The MLflow mirror against real tracking stores: embedded sqlite, and a `mlflow server` subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cmb.models import FailureClass
from cmb.store import MlflowConfig, MlflowMirror, ParquetStore, attempt_artifacts, default_tracking_uri
from tests.store.mlflow_helpers import MlflowServer, migrated_db, shared_server
from tests.store.records import make_record

mlflow = pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

KEYS = [f"sw/agent-a/t{t}/{c}/{n}" for t in (1, 2) for c in ("SF", "SR") for n in range(2)]


def attempt_runs(uri: str, sweep: str) -> list[object]:
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(sweep)
    assert exp is not None
    return list(client.search_runs([exp.experiment_id], filter_string="tags.`cmb.role` = 'attempt'", max_results=500))


def fill(store: ParquetStore, home: Path) -> None:
    for i, key in enumerate(KEYS):
        store.write(make_record(key, passed=i % 2 == 0, cost=0.5, tokens=10), spec_hash="h")
    art = attempt_artifacts(home, KEYS[0])
    (art / "submission").mkdir(parents=True)
    (art / "submission" / "answer.json").write_text('{"x": 1}')
    (art / "trajectory.jsonl").write_text('{"step": 1}\n')
    (art / "trajectory.atif.json").write_text('{"schema_version": "ATIF-v1.8"}')


def test_mirror_to_embedded_sqlite(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    fill(store, home)
    uri = default_tracking_uri(migrated_db(home / "mlflow.db").parent)
    assert uri.startswith("sqlite:///") and uri.endswith("home/mlflow.db")
    mirror = MlflowMirror(MlflowConfig(uri, "sw", home=home, spec_hash="h", params={"trials": "2"}))
    parent = mirror.initialise()
    report = mirror.sync(store, "sw")
    assert (report.logged, report.failed) == (len(KEYS), 0)

    runs = attempt_runs(uri, "sw")
    assert sorted(r.data.tags["cmb.key"] for r in runs) == sorted(KEYS)
    first = next(r for r in runs if r.data.tags["cmb.key"] == KEYS[0])
    tags, metrics = first.data.tags, first.data.metrics
    for name in ("sweep", "agent", "model", "task", "study", "kind", "condition", "trial"):
        assert f"cmb.{name}" in tags
    got = (tags["cmb.agent"], tags["cmb.task"], tags["cmb.condition"], tags["cmb.trial"])
    assert got == ("agent-a", "t1", "SF", "0")
    assert tags["mlflow.parentRunId"] == parent
    assert metrics["passed"] == 1.0 and metrics["cost"] == 0.5 and metrics["tokens"] == 15
    assert {"score", "steps", "seconds"} <= set(metrics)
    assert first.data.params["task_hash"] == "th"
    client = MlflowClient(uri)
    names = {a.path for a in client.list_artifacts(first.info.run_id)}
    assert {"submission", "trajectory.jsonl", "trajectory.atif.json", "grade.json"} <= names
    second = next(r for r in runs if r.data.tags["cmb.key"] == KEYS[1])
    assert {a.path for a in client.list_artifacts(second.info.run_id)} == {"grade.json"}  # from the record

    agg = client.get_run(parent).data
    assert agg.metrics["attempts"] == len(KEYS) and agg.metrics["pass_rate"] == 0.5
    assert agg.metrics["cost"] == pytest.approx(0.5 * len(KEYS))
    assert agg.metrics["pass_rate.condition.SF"] == 0.5 and agg.params["trials"] == "2"


def test_sync_is_idempotent_and_replaces_superseded_or_incomplete_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    fill(store, home)
    uri = default_tracking_uri(migrated_db(home / "mlflow.db").parent)
    config = MlflowConfig(uri, "sw", home=home)
    assert MlflowMirror(config).sync(store, "sw").logged == len(KEYS)
    again = MlflowMirror(config).sync(store, "sw")
    assert (again.logged, again.skipped) == (0, len(KEYS))

    # The attempt is written again (a resumed sweep after an infrastructure record): its MLflow run is replaced.
    store.write(make_record(KEYS[1], passed=True, finished_after_s=500), spec_hash="h")
    # A run whose logging died before its commit tag is replaced too.
    client = MlflowClient(uri)
    victim = next(r for r in attempt_runs(uri, "sw") if r.data.tags["cmb.key"] == KEYS[2])
    client.delete_tag(victim.info.run_id, "cmb.run_id")
    third = MlflowMirror(config).sync(store, "sw")
    assert (third.logged, third.skipped) == (2, len(KEYS) - 2)
    runs = attempt_runs(uri, "sw")
    assert sorted(r.data.tags["cmb.key"] for r in runs) == sorted(KEYS)  # one run per attempt, no duplicates
    assert next(r for r in runs if r.data.tags["cmb.key"] == KEYS[1]).data.metrics["passed"] == 1.0


def test_infrastructure_attempts_are_failed_runs_and_leave_the_denominator(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    store.write(make_record("sw/a/t1/SF/0", passed=True))
    store.write(make_record("sw/a/t1/SF/1", passed=False, failure=FailureClass.INFRASTRUCTURE, retries=2))
    uri = default_tracking_uri(migrated_db(home / "mlflow.db").parent)
    mirror = MlflowMirror(MlflowConfig(uri, "sw", home=home))
    mirror.sync(store, "sw")
    client = MlflowClient(uri)
    infra = next(r for r in attempt_runs(uri, "sw") if r.data.tags["cmb.trial"] == "1")
    assert infra.info.status == "FAILED" and infra.data.metrics["retries"] == 2
    assert infra.data.tags["cmb.failure_class"] == "infrastructure"
    assert mirror.parent_run_id is not None
    agg = client.get_run(mirror.parent_run_id).data.metrics
    assert agg["pass_rate"] == 1.0 and agg["infrastructure_failures"] == 1


@pytest.fixture(scope="module")
def server() -> MlflowServer:
    return shared_server()


@pytest.mark.slow
def test_mirror_to_a_server_with_proxied_artifacts(server: MlflowServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    fill(store, home)
    config = MlflowConfig(server.uri, "sw-store", home=home)
    records = sorted(store.records("sw"), key=lambda r: KEYS.index(str(r.key)))
    ids = store.run_ids("sw")
    mirror = MlflowMirror(config)
    mirror.initialise()
    assert mirror.log_attempt(records[0], ids[KEYS[0]]) is not None
    assert mirror.log_attempt(records[0], ids[KEYS[0]]) is None  # already mirrored
    report = MlflowMirror(config).sync(store, "sw")
    assert (report.logged, report.skipped, report.failed) == (len(KEYS) - 1, 1, 0)
    runs = attempt_runs(server.uri, "sw-store")
    assert sorted(r.data.tags["cmb.key"] for r in runs) == sorted(KEYS)
    first = next(r for r in runs if r.data.tags["cmb.key"] == KEYS[0])
    client = MlflowClient(server.uri)
    assert "submission" in {a.path for a in client.list_artifacts(first.info.run_id)}
    payload = client.download_artifacts(first.info.run_id, "grade.json", str(tmp_path))
    assert json.loads(Path(payload).read_text())["task_id"] == "t1"


def test_unreachable_server_fails_fast_instead_of_hanging(tmp_path: Path) -> None:
    from tests.processes import free_port

    store = ParquetStore(tmp_path / "results")
    store.write(make_record("sw/a/t1/SF/0"))
    mirror = MlflowMirror(MlflowConfig(f"http://127.0.0.1:{free_port()}", "sw", home=tmp_path))
    with pytest.raises(Exception):  # noqa: B017 - whichever client error; the caller carries on
        mirror.sync(store, "sw")
    assert os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] == "1"
