"""Sweeps on a real local Ray cluster (one per module), with real Parquet and real MLflow (sqlite and a server).

Fake attempts keep these fast; the driver, the launcher actors, the store and the mirror are the real ones.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmb.models import AttemptOptions, SweepSpec
from cmb.scheduler import run_sweep
from cmb.settings import CmbSettings
from cmb.store import ParquetStore, default_tracking_uri
from tests.scheduler.fakes import fake_attempt, launches, make_suite
from tests.store.mlflow_helpers import MlflowServer, migrated_db, shared_server

ray = pytest.importorskip("ray")
mlflow = pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

pytestmark = pytest.mark.ray
REPO = Path(__file__).resolve().parents[2]
N = 3 * 2 * 3 * 2  # tasks x conditions x trials x agents


@pytest.fixture(scope="module")
def gcs_address() -> Iterator[str]:
    """One local Ray for the module: small, no dashboard (Ray's startup is the slow part)."""
    ray.init(num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return make_suite(tmp_path / "suite", workflow=False)


def spec(name: str, **kw: object) -> SweepSpec:
    base: dict[str, object] = {"name": name, "agents": ["oracle", "null"], "conditions": ["SF", "SR"], "trials": 3,
                               "max_concurrency": 2, "retry_backoff_s": 0.0}  # fmt: skip
    return SweepSpec.model_validate({**base, **kw})


def attempt_runs(uri: str, experiment: str) -> list[object]:
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        return []
    flt = "tags.`cmb.role` = 'attempt'"
    return list(client.search_runs([exp.experiment_id], filter_string=flt, max_results=1000))


def settings(home: Path, root: Path) -> CmbSettings:
    return CmbSettings(root=root, store={"home": home})


def extra(**options: str) -> AttemptOptions:
    return AttemptOptions(extra=options)


def expected_keys(name: str) -> set[str]:
    return {f"{name}/{a}/{t}/{c}/{n}" for a in ("oracle", "null") for t in ("t-one", "t-two", "t-three")
            for c in ("SF", "SR") for n in range(3)}  # fmt: skip


def test_sweep_on_ray_writes_parquet_and_mlflow(gcs_address: str, suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    migrated_db(home / "mlflow.db")
    summary = run_sweep(spec("ray1"), settings=settings(home, suite), attempt_fn=fake_attempt, executor="ray",
                        options=extra(log_dir=str(home / "launches")), progress=False)  # fmt: skip
    assert summary.complete and summary.done == N and summary.pass_rate == 0.5
    runs = ParquetStore(home / "results").runs("ray1", dedupe=False)
    assert set(runs.get_column("key")) == expected_keys("ray1") and runs.height == N
    assert ParquetStore(home / "results").checks("ray1").height == 2 * N
    pids = {x["pid"] for x in launches(home / "launches")}
    assert os.getpid() not in pids  # ran in launcher actors, not in the driver

    uri = default_tracking_uri(home)
    mlruns = attempt_runs(uri, "ray1")
    assert sorted(r.data.tags["cmb.key"] for r in mlruns) == sorted(expected_keys("ray1"))
    assert {r.data.tags["cmb.model"] for r in mlruns} == {"fake-model"}
    client = MlflowClient(uri)
    parent = client.search_runs([mlruns[0].info.experiment_id], filter_string="tags.`cmb.role` = 'sweep'")
    assert len(parent) == 1 and parent[0].data.metrics["attempts"] == N
    assert parent[0].data.metrics["pass_rate"] == 0.5 and parent[0].info.status == "FINISHED"
    assert {r.data.tags["mlflow.parentRunId"] for r in mlruns} == {parent[0].info.run_id}


def test_launcher_killed_mid_attempt_is_one_infrastructure_retry(gcs_address: str, suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    victim = "ray2/oracle/t-two/SR/1"
    summary = run_sweep(spec("ray2"), settings=settings(home, suite), attempt_fn=fake_attempt, executor="ray",
                        mlflow_uri="none", progress=False, per_launcher=1,  # the victim alone in its launcher
                        options=extra(log_dir=str(home / "launches"), kill_key=victim))  # fmt: skip
    assert summary.complete and summary.retries == 1
    runs = ParquetStore(home / "results").runs("ray2", dedupe=False)
    assert runs.height == N and runs.get_column("key").n_unique() == N  # no duplicate
    row = runs.filter(runs["key"] == victim).row(0, named=True)
    assert (row["retries"], row["passed"], row["failure_class"]) == (1, True, None)
    assert set(runs.filter(runs["key"] != victim).get_column("retries")) == {0}
    tries = [x for x in launches(home / "launches") if x["key"] == victim]
    assert [x["retry"] for x in tries] == [0, 1]
    assert tries[0]["pid"] != tries[1]["pid"] and tries[0]["slug"] == tries[1]["slug"]  # same sandbox name


def test_a_shared_launcher_killed_mid_batch_loses_and_repeats_nothing(
    gcs_address: str, suite: Path, tmp_path: Path
) -> None:
    """Launchers run several launches and group their records' writes: a launcher killed while attempts finish
    around it loses exactly those whose records were not yet durable, and each of them runs again, once."""
    home = tmp_path / "home"
    victim = "ray5/oracle/t-two/SR/1"
    summary = run_sweep(spec("ray5", max_concurrency=4), settings=settings(home, suite), attempt_fn=fake_attempt,
                        executor="ray", mlflow_uri="none", progress=False,
                        options=extra(log_dir=str(home / "launches"), kill_key=victim, kill_after_s="0.3",
                                      sleep="0.1"))  # fmt: skip
    assert summary.complete and summary.done == N and summary.retries >= 1
    runs = ParquetStore(home / "results").runs("ray5", dedupe=False)
    assert runs.height == N and set(runs.get_column("key")) == expected_keys("ray5")  # none lost, none twice
    started = Counter(str(x["key"]) for x in launches(home / "launches"))
    relaunched = {k for k, n in started.items() if n > 1}
    assert victim in relaunched and len(relaunched) == summary.retries <= 4  # only those running in the launcher
    retried = dict(zip(runs.get_column("key"), runs.get_column("retries"), strict=True))
    assert {k for k, r in retried.items() if r} == relaunched


def _cli(home: Path, suite: Path, gcs: str, *args: str) -> subprocess.Popen[bytes]:
    # python itself, not a `cmb` shim script (pyenv's), so that the signal reaches the driver's own process
    exe = [sys.executable, "-c", "from cmb.cli import main; main()"]
    env = {**os.environ, "CMB_HOME": str(home), "PYTHONPATH": str(REPO), "RAY_AUTH_MODE": "token"}
    fake = "tests.scheduler.fakes:fake_attempt"
    log = f"log_dir={home / 'launches'}"
    cmd = [*exe, "--root", str(suite), "sweep", "--address", gcs, "--attempt-fn", fake,
           "--attempt-option", log, "--mlflow-uri", "none", "--no-progress", *args]  # fmt: skip
    return subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.mark.slow
def test_driver_sigkilled_then_resumed_loses_and_repeats_nothing(gcs_address: str, suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    first = _cli(home, suite, gcs_address, "--sweep-id", "ray3", "--agents", "oracle,null", "--conditions", "SF,SR",
                 "--trials", "3", "--max-concurrency", "2", "--attempt-option", "sleep=0.4")  # fmt: skip
    deadline = time.monotonic() + 180
    while len(store.files("runs", "ray3")) < 6:
        assert first.poll() is None, first.communicate()[0].decode()[-3000:]
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    done_before = store.runs("ray3").height
    assert 6 <= done_before < N

    second = _cli(home, suite, gcs_address, "--sweep-id", "ray3", "--resume", "--json")
    out, _ = second.communicate(timeout=300)
    assert second.returncode == 0, out.decode()[-3000:]
    runs = store.runs("ray3", dedupe=False)
    assert set(runs.get_column("key")) == expected_keys("ray3")
    assert runs.height == N  # every attempt recorded once: none lost, none twice
    started = Counter(str(x["key"]) for x in launches(home / "launches"))
    assert set(started) == expected_keys("ray3")
    # only attempts that were running when the driver died were launched twice
    assert sum(n - 1 for n in started.values()) <= 2


@pytest.fixture(scope="module")
def server() -> MlflowServer:
    return shared_server()


@pytest.mark.slow
def test_mlflow_server_stopped_mid_sweep_loses_nothing(
    gcs_address: str, server: MlflowServer, suite: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    store = ParquetStore(home / "results")
    result: dict[str, object] = {}

    def drive() -> None:
        result["summary"] = run_sweep(spec("ray4"), settings=settings(home, suite), attempt_fn=fake_attempt,
                                      executor="ray", mlflow_uri=server.uri, progress=False,
                                      options=extra(log_dir=str(home / "launches"), sleep="0.3"))  # fmt: skip

    thread = threading.Thread(target=drive)
    thread.start()
    deadline = time.monotonic() + 180
    try:
        while len(attempt_runs(server.uri, "ray4")) < 4:
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.3)
    finally:
        server.stop()
    thread.join(timeout=600)
    summary = result["summary"]
    assert summary.complete and summary.mlflow.pending > 0  # type: ignore[attr-defined]  # left for a later sync
    assert store.runs("ray4").height == N  # Parquet has everything

    server.start()
    mirrored = len(attempt_runs(server.uri, "ray4"))
    assert 4 <= mirrored < N
    from click.testing import CliRunner

    from cmb.cli._main import cli

    res = CliRunner().invoke(cli, ["--root", str(suite), "mlflow-sync", "ray4", "--mlflow-uri", server.uri],
                             env={"CMB_HOME": str(home)})  # fmt: skip
    assert res.exit_code == 0, res.output
    keys = [r.data.tags["cmb.key"] for r in attempt_runs(server.uri, "ray4")]
    assert sorted(keys) == sorted(expected_keys("ray4"))  # all there, each once


@pytest.mark.slow
def test_real_oracle_and_null_attempts_through_the_runner(gcs_address: str, tmp_path: Path) -> None:
    """The default attempt function (the real lifecycle) on the local backend, launched by Ray actors."""
    from cmb.catalog import Catalog
    from cmb.models import ResourceProfile

    root = CmbSettings().root
    wanted = ("si-eos-analysis", "si-pw-scf-inputs")
    catalog = Catalog.load(root)
    if not all(t in catalog.entries for t in wanted):
        pytest.skip(f"tasks {wanted} are not all in the suite")
    home = tmp_path / "home"
    migrated_db(home / "mlflow.db")
    small = ResourceProfile(name="single", cpus=1, memory_gib=2, time_limit_s=300, disk_gib=1)
    s = spec("real", tasks=list(wanted), backend="local", profiles={"single": small})
    summary = run_sweep(s, settings=settings(home, root), executor="ray", progress=False)
    n = len(wanted) * 2 * 3 * 2
    assert summary.complete and summary.done == n
    runs = ParquetStore(home / "results").runs("real", dedupe=False)
    assert runs.height == n and runs.get_column("key").n_unique() == n
    oracle, null = runs.filter(runs["agent"] == "oracle"), runs.filter(runs["agent"] == "null")
    assert set(oracle.get_column("passed")) == {True}, oracle.select("key", "failure_class", "exit_reason").rows()
    assert set(null.get_column("passed")) == {False}
    assert "infrastructure" not in set(null.get_column("failure_class"))
    assert set(runs.get_column("cpus")) == {1.0}  # the sweep's profile reached the sandbox
    mlruns = attempt_runs(default_tracking_uri(home), "real")
    assert len(mlruns) == n
    client = MlflowClient(default_tracking_uri(home))
    one = next(r for r in mlruns if r.data.tags["cmb.agent"] == "oracle")
    assert {"submission", "grade.json"} <= {a.path for a in client.list_artifacts(one.info.run_id)}
