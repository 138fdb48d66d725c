"""The MLflow mirror that follows the Parquet store: batching within MLflow's limits, incremental catch-up after an
outage without duplicates, and a child process whose wait is bounded."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cmb.models import FailureClass
from cmb.store import MirrorFollower, MirrorProcess, MlflowConfig, MlflowMirror, ParquetStore, _follow, log_batches
from tests.store.mlflow_helpers import migrated_db
from tests.store.records import make_record

mlflow = pytest.importorskip("mlflow")
from mlflow.entities import Metric, Param, RunTag  # noqa: E402
from mlflow.tracking import MlflowClient  # noqa: E402
from mlflow.utils import validation  # noqa: E402

KEYS = [f"sw/agent-a/t{t}/{c}/{n}" for t in (1, 2) for c in ("SF", "SR") for n in range(2)]


class Calls:
    """An MLflow client that only records its log_batch calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, list[Any]]] = []

    def log_batch(self, run_id: str, metrics: list[Any], params: list[Any], tags: list[Any]) -> None:
        self.calls.append({"metrics": metrics, "params": params, "tags": tags})


def test_log_batches_respects_mlflow_limits_and_keeps_the_commit_tag_last() -> None:
    metrics = [Metric(f"m{i}", float(i), 0, 0) for i in range(2500)]
    params = [Param(f"p{i}", "x" * 5000) for i in range(250)]  # large values: the request size decides
    tags = [RunTag(f"t{i}", "y") for i in range(150)] + [RunTag("cmb.run_id", "commit")]
    client = Calls()
    n = log_batches(client, "r", metrics, params, tags)
    assert n == len(client.calls) > 1
    for call in client.calls:
        assert len(call["metrics"]) <= validation.MAX_METRICS_PER_BATCH
        assert len(call["params"]) <= validation.MAX_PARAMS_TAGS_PER_BATCH
        assert len(call["tags"]) <= validation.MAX_PARAMS_TAGS_PER_BATCH
        assert sum(map(len, call.values())) <= validation.MAX_ENTITIES_PER_BATCH
        size = sum(len(e.key) + len(str(e.value)) for kind in call.values() for e in kind)
        assert size < validation.MAX_BATCH_LOG_REQUEST_SIZE
    sent = [e for call in client.calls for kind in ("metrics", "params", "tags") for e in call[kind]]
    assert sent == [*metrics, *params, *tags]  # nothing lost, order kept
    assert client.calls[-1]["tags"][-1].key == "cmb.run_id"
    small = Calls()
    assert log_batches(small, "r", metrics[:14], params[:10], tags[-1:]) == 1  # an attempt: one call


def attempt_runs(uri: str, sweep: str) -> list[Any]:
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(sweep)
    if exp is None:
        return []
    return list(client.search_runs([exp.experiment_id], filter_string="tags.`cmb.role` = 'attempt'", max_results=500))


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[tuple[ParquetStore, MlflowConfig]]:
    home = tmp_path / "home"
    migrated_db(home / "mlflow.db")
    yield ParquetStore(home / "results"), MlflowConfig(f"sqlite:///{home / 'mlflow.db'}", "sw", home=home)


def test_an_outage_mid_run_is_caught_up_without_duplicates(
    sqlite: tuple[ParquetStore, MlflowConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, config = sqlite
    for key in KEYS[:4]:
        store.write(make_record(key), spec_hash="h")
    follower = MirrorFollower(config, store, "sw")
    calls = {"n": 0}
    real = MlflowMirror._log_artifacts

    def flaky(self: MlflowMirror, mlflow_id: str, record: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the third run is created, then MLflow goes away
            raise ConnectionError("MLflow went away")
        real(self, mlflow_id, record)

    monkeypatch.setattr(MlflowMirror, "_log_artifacts", flaky)
    assert not follower.step() and follower.error is not None and "went away" in follower.error
    assert (follower.report.logged, follower.pending) == (2, 2)
    for key in KEYS[4:]:  # the sweep goes on meanwhile
        store.write(make_record(key), spec_hash="h")
    store.write(make_record(KEYS[0], passed=False, finished_after_s=99), spec_hash="h")  # written again
    assert follower.step() and follower.pending == 0
    runs = attempt_runs(config.tracking_uri, "sw")
    assert sorted(r.data.tags["cmb.key"] for r in runs) == sorted(KEYS)  # each once: the half-made run replaced
    assert all(r.data.tags.get("cmb.run_id") for r in runs)
    assert next(r for r in runs if r.data.tags["cmb.key"] == KEYS[0]).data.metrics["passed"] == 0.0
    # A later follower (the next session, or `cmb mlflow-sync`) finds nothing to do.
    again = MirrorFollower(config, store, "sw")
    assert again.step() and (again.report.logged, again.report.skipped) == (0, len(KEYS))


def test_an_infrastructure_record_does_not_replace_the_agents(sqlite: tuple[ParquetStore, MlflowConfig]) -> None:
    store, config = sqlite
    store.write(make_record(KEYS[0]), spec_hash="h")
    follower = MirrorFollower(config, store, "sw")
    assert follower.step() and follower.report.logged == 1
    store.write(make_record(KEYS[0], passed=False, failure=FailureClass.INFRASTRUCTURE, finished_after_s=99))
    assert follower.step() and follower.report.logged == 1  # the agent's record stands, in MLflow too


@pytest.fixture
def hung_server() -> Iterator[str]:
    """An HTTP address that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    sock.close()


def test_a_hung_mlflow_is_left_behind_within_the_bound(hung_server: str, tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "results")
    for key in KEYS:
        store.write(make_record(key))
    mirror = MirrorProcess(MlflowConfig(hung_server, "sw", home=tmp_path), store.root, "sw", tmp_path / "m.log")
    t0 = time.monotonic()
    report = mirror.close(3.0)
    assert time.monotonic() - t0 < 10
    assert report.logged == 0 and any("did not finish" in e for e in report.errors)
    assert mirror.proc.returncode is not None  # ended, not left running


def test_spare_cpus_counts_idle_and_iowait_time_of_the_machine(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    tick = 1.0 / _follow.os.sysconf("SC_CLK_TCK")
    clock = iter([100.0, 102.0, 104.0]).__next__
    own = iter([0.0, 0.0, 0.5]).__next__  # this process's user + system seconds at each look
    stat.write_text("cpu  500 0 100 1000 0 0 0 0 0 0\ncpu0 1 2 3 4 5\n")
    gauge = _follow.SpareCpus(stat, clock, own)
    # 2 s later: 1 s of idle and 0.2 s of iowait in ticks, so 0.6 CPUs sat idle on average
    stat.write_text(f"cpu  700 0 100 {1000 + round(1.0 / tick)} {round(0.2 / tick)} 0 0 0 0 0\n")
    assert gauge.spare() == pytest.approx(0.6, abs=0.02)
    # 2 s more, no idle time at all, but half a second of it was this process: that counts as spare
    assert gauge.spare() == pytest.approx(0.25, abs=0.02)
    assert _follow.SpareCpus(tmp_path / "missing").spare() == float("inf")  # no /proc: never holds the mirror


def _follow_a_sweep(
    store: ParquetStore, config: MlflowConfig
) -> tuple[MirrorFollower, threading.Event, list[dict[str, Any]], threading.Thread]:
    """A follower on its own thread, looking every 50 ms, while the sweep writes every key of KEYS."""
    follower = MirrorFollower(config, store, "sw")
    closing, statuses = threading.Event(), []
    thread = threading.Thread(target=_follow.follow, args=(follower, closing, statuses.append, 0.05))
    thread.start()
    for key in KEYS:
        store.write(make_record(key), spec_hash="h")
    return follower, closing, statuses, thread


def test_a_busy_machine_defers_mirroring_until_the_sweep_ends(
    sqlite: tuple[ParquetStore, MlflowConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, config = sqlite
    monkeypatch.setattr(_follow, "MIN_SPARE_CPUS", float("inf"))  # never a CPU to spare while the sweep runs
    follower, closing, statuses, thread = _follow_a_sweep(store, config)
    time.sleep(0.5)  # ten looks
    assert follower.report.logged == 0 and not statuses and attempt_runs(config.tracking_uri, "sw") == []
    closing.set()
    thread.join(60)
    assert statuses[-1]["final"] and statuses[-1]["logged"] == len(KEYS) and statuses[-1]["pending"] == 0
    assert len(attempt_runs(config.tracking_uri, "sw")) == len(KEYS)


def test_with_a_cpu_to_spare_the_mirror_keeps_up_while_the_sweep_runs(
    sqlite: tuple[ParquetStore, MlflowConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, config = sqlite
    monkeypatch.setattr(_follow, "MIN_SPARE_CPUS", 0.0)
    follower, closing, statuses, thread = _follow_a_sweep(store, config)
    deadline = time.monotonic() + 60
    while follower.report.logged < len(KEYS) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert follower.report.logged == len(KEYS) and not closing.is_set()
    closing.set()
    thread.join(60)
    assert statuses[-1]["final"] and len(attempt_runs(config.tracking_uri, "sw")) == len(KEYS)
