"""Attempts on sandboxes from a warm pool: the same records as on sandboxes of their own, the isolation proof of each
sandbox recorded with the attempt that claimed it, no sandbox serving two attempts, nothing left after the drain."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmb.agents import get_agent
from cmb.catalog import Catalog, TaskEntry
from cmb.models import Condition, ResourceProfile, RunKey, RunRecord
from cmb.runner import RunOptions, artifacts_path, run_attempt
from cmb.sandbox import LocalSandbox, drain_pools, get_backend
from cmb.sandbox._owner import OWNER_LABEL, owner_tag
from cmb.sandbox._pool import _POOLS, NAME_PREFIX
from tests.sandbox._support import SLIM_IMAGE, build_image, require_backend

REPO = Path(__file__).resolve().parents[2]
PROFILE = ResourceProfile(name="single", cpus=1, memory_gib=1, time_limit_s=120, disk_gib=1)
TASK = "si-eos-analysis"


@pytest.fixture(scope="module")
def entry() -> TaskEntry:
    return Catalog.load(REPO).get(TASK)


@pytest.fixture
def local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The local backend with a sandbox folder of this test's own, so that what is left in it can be counted."""
    require_backend("local")
    base = tmp_path / "sandboxes"
    monkeypatch.setattr(LocalSandbox, "base_dir", base)
    yield base
    drain_pools()


def _local_left(base: Path) -> list[str]:
    return sorted(p.name for p in base.iterdir()) if base.exists() else []


def _docker_left(base: Path) -> list[str]:
    import docker

    mine = {"label": ["cmb=1", f"{OWNER_LABEL}={owner_tag()}"]}
    return sorted(c.name for c in docker.from_env().containers.list(all=True, filters=mine))


LEFT = {"local": _local_left, "docker": _docker_left}


@pytest.fixture(params=["local", "docker"])
def backend(request: pytest.FixtureRequest, local: Path) -> str:
    require_backend(request.param)
    if request.param == "docker":
        build_image("slim")
    return str(request.param)


def attempt(
    entry: TaskEntry, home: Path, trial: int, agent: str = "null", spares: int | None = 1, backend: str = "local"
) -> RunRecord:
    key = RunKey(sweep="warm", agent=agent, task=entry.id, condition=Condition.SF, trial=trial)
    options = RunOptions(home=home, image=SLIM_IMAGE, profiles={"single": PROFILE}, pool_spares=spares)
    return run_attempt(key, entry, get_agent(agent), get_backend(backend), options)


def wait_for_a_spare() -> None:
    (pool,) = _POOLS.values()
    deadline = time.monotonic() + 120
    while pool.ready == 0:
        assert pool.last_error is None and time.monotonic() < deadline, pool.last_error
        time.sleep(0.02)


def network(home: Path, record: RunRecord) -> dict[str, object]:
    return json.loads((artifacts_path(home, record.key) / "network.json").read_text())  # type: ignore[no-any-return]


def test_warm_attempts_match_cold_ones_and_each_records_its_own_sandboxs_probe(
    entry: TaskEntry, backend: str, local: Path, tmp_path: Path
) -> None:
    cold = attempt(entry, tmp_path / "cold", 0, spares=None, backend=backend)
    warm = []
    for trial in range(3):
        warm.append(attempt(entry, tmp_path / "warm", trial, backend=backend))
        wait_for_a_spare()  # as while an agent works: the next sandbox is made meanwhile
    for record in [cold, *warm]:
        assert (record.passed, record.failure_class, record.audit_flags) == (
            cold.passed,
            cold.failure_class,
            cold.audit_flags,
        )
        assert record.audit_flags is not None and record.audit_flags.network_isolated
    assert network(tmp_path / "cold", cold)["warm_s"] is None
    probes = [network(tmp_path / "warm", r) for r in warm]
    names = [str(p["sandbox"]) for p in probes]
    assert all(name.startswith(NAME_PREFIX) for name in names)
    assert len(set(names)) == 3  # never one sandbox for two attempts
    assert all(p["ran"] and p["reached"] == [] for p in probes)
    # The later attempts found their sandbox ready: it was probed before they claimed it.
    assert all(isinstance(p["warm_s"], float) and p["warm_s"] >= 0 for p in probes)
    assert warm[2].timings.setup < cold.timings.setup
    drain_pools()
    assert LEFT[backend](local) == []


def test_an_oracle_passes_on_a_warm_sandbox(entry: TaskEntry, local: Path, tmp_path: Path) -> None:
    attempt(entry, tmp_path / "home", 0)  # the first claim is made on demand; the next one is warm
    wait_for_a_spare()
    record = attempt(entry, tmp_path / "home", 1, agent="oracle")
    assert record.passed, record.audit_messages
    assert network(tmp_path / "home", record)["warm_s"] is not None


_CRASH = """
import sys, time
from pathlib import Path
from cmb.models import ResourceProfile
from cmb.sandbox import LocalSandbox, SandboxPool, SandboxSpec
LocalSandbox.base_dir = Path(sys.argv[1])
profile = ResourceProfile(name="single", cpus=1, memory_gib=1, time_limit_s=60, disk_gib=1)
pool = SandboxPool(LocalSandbox, SandboxSpec(name="shape", profile=profile), lambda sb: None, max_spares=2)
pool.claim(60)
pool.claim(60)
while pool.ready < 2:
    time.sleep(0.05)
print("ready", flush=True)
time.sleep(600)
"""


def test_a_crashed_process_leaves_nothing_the_owner_janitor_does_not_remove(local: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CRASH, str(local)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert len(list(local.iterdir())) == 4  # two claimed, two spares
        assert LocalSandbox.cleanup_orphans() == []  # the owner lives: nothing of it is touched
        proc.send_signal(signal.SIGKILL)  # no drain, no atexit
        proc.wait(30)
        time.sleep(0.1)
        removed = LocalSandbox.cleanup_orphans()
        assert len(removed) >= 4 and all(name.startswith(NAME_PREFIX) for name in removed)
        assert list(local.iterdir()) == []
    finally:
        proc.kill()
