"""The Ray executor: pools of async launcher actors, one pool per resource profile.

Every launcher runs `execute` (the same code as the thread executor) on a worker thread, so its event loop stays
free to answer; it writes the record to the Parquet store and mirrors it to MLflow itself, which spreads that I/O
over the cluster and needs only the small outcome to travel back. A launcher that dies (killed, node lost) is
restarted by Ray; the driver sees the lost call as an infrastructure failure and relaunches the attempt, which
attaches to the attempt's deterministic sandbox name. Launchers of a profile may request Ray resources (e.g. one
`cmb-workflow-node` per workflow launcher), so Ray places them, and its autoscaler adds nodes, per profile.

This and `_submit.py` are the only modules of cmb that import Ray.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

from cmb.scheduler._attempt import AttemptFn, Job, Outcome, execute, mirror_from
from cmb.store import MlflowConfig, MlflowMirror, ParquetStore

OBJECT_STORE_MB = 200  # results travel through the store, not through Ray: a small object store is enough


def connect(address: str | None = None, *, num_cpus: int | None = None, object_store_mb: int = OBJECT_STORE_MB) -> bool:
    """Connect to Ray: an existing cluster by address (or RAY_ADDRESS, as inside a Ray job), else a local one.

    Returns whether this call started Ray (and so should shut it down).
    """
    if ray.is_initialized():
        return False
    common: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=address or None, **common)
    else:
        # address="local": a cluster of its own, even where `ray start` left its address file behind.
        ray.init(
            address="local",
            num_cpus=num_cpus or os.cpu_count() or 1,
            object_store_memory=object_store_mb * 2**20,
            include_dashboard=False,
            **common,
        )
    return True


def disconnect() -> None:
    """Shut down the Ray connection (and a local cluster this process started)."""
    ray.shutdown()


@ray.remote
class Launcher:
    """Runs launches of one profile; `max_concurrency` of them at once."""

    def __init__(self, attempt_fn: AttemptFn, store_root: str, mirror: MlflowConfig | None) -> None:
        self.attempt_fn = attempt_fn
        self.store = ParquetStore(Path(store_root))
        self.mirror_config = mirror
        self._mirror: MlflowMirror | None = None
        self._mirror_made = False
        self._lock = threading.Lock()

    def _get_mirror(self) -> MlflowMirror | None:
        with self._lock:
            if not self._mirror_made:
                self._mirror = mirror_from(self.mirror_config)
                self._mirror_made = True
            return self._mirror

    def _run(self, job: Job) -> Outcome:
        return execute(job, self.attempt_fn, self.store, self._get_mirror())

    async def run(self, job: Job) -> Outcome:
        """One launch, on a worker thread."""
        return await asyncio.to_thread(self._run, job)

    async def pid(self) -> int:
        """The launcher's process id (tests kill it)."""
        return os.getpid()


@dataclass
class _Pool:
    actors: list[Any] = field(default_factory=list)
    load: list[int] = field(default_factory=list)
    dead: list[bool] = field(default_factory=list)


class RayExecutor:
    """Launches on Ray actors, created per profile on first use."""

    def __init__(
        self,
        attempt_fn: AttemptFn,
        store_root: Path,
        mirror: MlflowConfig | None,
        *,
        slots: dict[str, int],
        resources: dict[str, dict[str, float]] | None = None,
        per_launcher: int = 1,
        launcher_cpus: float = 0.0,
    ) -> None:
        self.attempt_fn = attempt_fn
        self.store_root = str(store_root)
        self.mirror = mirror
        self.slots = slots
        self.resources = resources or {}
        self.per_launcher = max(1, per_launcher)
        self.launcher_cpus = launcher_cpus
        self.pools: dict[str, _Pool] = {}
        self._lock = threading.Lock()

    def _new_launcher(self, profile: str) -> Any:
        return Launcher.options(  # type: ignore[attr-defined]
            num_cpus=self.launcher_cpus,
            resources=self.resources.get(profile) or None,
            max_concurrency=self.per_launcher,
            max_restarts=0,  # a dead launcher is replaced by the executor, so no call ever meets a restarting one
            max_task_retries=0,  # the driver decides about retries, and counts them
        ).remote(self.attempt_fn, self.store_root, self.mirror)

    def _pool(self, profile: str) -> _Pool:
        if profile not in self.pools:
            n = max(1, -(-self.slots.get(profile, 1) // self.per_launcher))
            actors = [self._new_launcher(profile) for _ in range(n)]
            self.pools[profile] = _Pool(actors=actors, load=[0] * n, dead=[False] * n)
        return self.pools[profile]

    def launchers(self, profile: str) -> list[Any]:
        """The actor handles of a profile's pool."""
        with self._lock:
            return list(self._pool(profile).actors)

    def submit(self, job: Job) -> Future[Outcome]:
        """Send a launch to the least loaded live launcher of its profile.

        A launcher whose call failed is marked dead before the driver hears of the failure, and replaced here,
        so the retry that follows lands on a fresh one. (No Ray call is made from Ray's callback thread.)
        """
        profile = job.attempt.profile.name
        with self._lock:
            pool = self._pool(profile)
            for j, dead in enumerate(pool.dead):
                if dead:
                    try:
                        ray.kill(pool.actors[j], no_restart=True)
                    except Exception:  # already gone
                        pass
                    pool.actors[j] = self._new_launcher(profile)
                    pool.dead[j] = False
            i = min(range(len(pool.actors)), key=pool.load.__getitem__)
            pool.load[i] += 1
            actor = pool.actors[i]
        outer: Future[Outcome] = Future()
        inner: Future[Outcome] = actor.run.remote(job).future()

        def settle(done: Future[Outcome]) -> None:
            exc = done.exception()
            with self._lock:
                pool.load[i] -= 1
                if exc is not None and pool.actors[i] is actor:
                    pool.dead[i] = True
            if exc is not None:
                outer.set_exception(exc)
            else:
                outer.set_result(done.result())

        inner.add_done_callback(settle)
        return outer

    def shutdown(self, *, cancel: bool) -> None:
        """Kill the launchers (with cancel, the attempts they still run die with them)."""
        for pool in self.pools.values():
            for actor in pool.actors:
                try:
                    ray.kill(actor, no_restart=True)
                except Exception:  # already gone
                    pass
        self.pools.clear()
