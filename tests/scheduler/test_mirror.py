"""MLflow is off the attempts' path: a sweep never waits for it, and what it missed arrives once it is back."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cmb.models import AttemptOptions, SweepSpec
from cmb.scheduler import run_sweep
from cmb.settings import CmbSettings
from cmb.store import ParquetStore
from tests.scheduler.fakes import fake_attempt, make_suite
from tests.store.mlflow_helpers import migrated_db
from tests.store.test_follow import attempt_runs, hung_server  # noqa: F401 - a fixture

mlflow = pytest.importorskip("mlflow")
N = 3 * 2 * 2 * 2  # tasks x conditions x trials x agents


def spec() -> SweepSpec:
    return SweepSpec(name="m1", agents=["oracle", "null"], conditions=["SF", "SR"], trials=2, max_concurrency=4,
                     retry_backoff_s=0.0)  # fmt: skip


def sweep(suite: Path, home: Path, uri: str, **kw: object):  # type: ignore[no-untyped-def]
    settings = CmbSettings(root=suite, store={"home": home})
    options = AttemptOptions(extra={"log_dir": str(home / "launches"), "sleep": "0.05"})
    return run_sweep(spec(), settings=settings, attempt_fn=fake_attempt, executor="threads", options=options,
                     progress=False, mlflow_uri=uri, **kw)  # type: ignore[arg-type]  # fmt: skip


def test_a_hung_mlflow_does_not_slow_the_sweep(hung_server: str, tmp_path: Path) -> None:  # noqa: F811
    suite = make_suite(tmp_path / "suite", workflow=False)
    t0 = time.monotonic()
    summary = sweep(suite, tmp_path / "home", hung_server, mlflow_wait_s=2.0)
    elapsed = time.monotonic() - t0
    assert summary.complete and summary.done == N
    assert ParquetStore(tmp_path / "home" / "results").runs("m1").height == N
    # 24 attempts of 50 ms on 4 slots: the attempts' own time; each MLflow call would hang for 15 s or more.
    assert elapsed - summary.mlflow_wait_s < 10 and summary.mlflow_wait_s < 5
    assert summary.mlflow is not None and summary.mlflow.logged == 0 and summary.mlflow.errors


def test_mlflow_down_during_a_sweep_gets_every_record_once_it_is_back(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", workflow=False)
    home = tmp_path / "home"
    down = tmp_path / "mlflow"
    down.write_text("not a folder")  # the database cannot be opened: MLflow is down
    uri = f"sqlite:///{down / 'mlflow.db'}"
    summary = sweep(suite, home, uri, mlflow_wait_s=3.0)
    assert summary.complete and summary.done == N  # nothing waited for MLflow, nothing was lost
    assert summary.mlflow is not None and summary.mlflow.logged == 0

    down.unlink()
    migrated_db(down / "mlflow.db")  # MLflow is back
    again = sweep(suite, home, uri, resume=True)
    assert again.complete and (again.skipped, again.done) == (N, 0)
    assert again.mlflow is not None and (again.mlflow.logged, again.mlflow.pending) == (N, 0)
    runs = attempt_runs(uri, "m1")
    assert len(runs) == N and len({r.data.tags["cmb.key"] for r in runs}) == N  # each once
