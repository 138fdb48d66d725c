"""The Ray executor: pools of async launcher actors, one pool per resource profile.

A launcher runs several launches at once, each `execute` (the same code as the thread executor) on a worker
thread, so its event loop stays free to answer. The driver sends each launcher its new jobs in one call per
dispatch round and keeps one collecting call open per busy launcher, which returns every outcome finished since
the last: a few round trips per batch, not one per attempt. A launcher writes its records to the Parquet store
itself (records finishing together share one durable file) and sends back only the small outcome, after the write.

How many launchers: where a profile's launchers request Ray resources (e.g. one `cmb-workflow-node` each), one per
slot, so Ray places, and its autoscaler adds nodes, per attempt; elsewhere one per `LAUNCHER_SLOTS` slots, since
a launcher's start-up (a Python process importing the harness) costs more than the attempts it coordinates.

A launcher that dies (killed, node lost) takes its running launches with it: the driver sees each as an
infrastructure failure and relaunches it on a fresh launcher, where it attaches to the attempt's deterministic
sandbox name; a record already durable stands.

This and `_submit.py` are the only modules of cmb that import Ray.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

from cmb.sandbox import drain_pools
from cmb.scheduler._attempt import AttemptFn, Job, Outcome, execute
from cmb.store import ParquetStore

OBJECT_STORE_MB = 200  # results travel through the store, not through Ray: a small object store is enough
LAUNCHER_SLOTS = 16  # launches one launcher runs at once where Ray need not place them one by one
DRAIN_TIMEOUT_S = 120.0  # for the launchers to tear their warm sandboxes down at the end of a sweep
Report = tuple[str, Outcome | None, str | None]  # key, outcome, or the error that kept it from one


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
    """Runs up to `slots` launches at once, started in batches and reported in batches."""

    def __init__(self, attempt_fn: AttemptFn, store_root: str, slots: int) -> None:
        self.attempt_fn = attempt_fn
        self.store = ParquetStore(Path(store_root))
        self.pool = ThreadPoolExecutor(max_workers=max(1, slots), thread_name_prefix="cmb-launch")
        self.finished: list[Report] = []
        self.ready = asyncio.Event()

    async def start(self, jobs: list[Job]) -> None:
        """Start launches and return at once: their outcomes come through `outcomes`."""
        loop = asyncio.get_running_loop()
        for job in jobs:
            future = loop.run_in_executor(self.pool, execute, job, self.attempt_fn, self.store)
            future.add_done_callback(functools.partial(self._done, job.key))

    def _done(self, key: str, future: asyncio.Future[Outcome]) -> None:
        exc = future.exception()
        error = None if exc is None else f"{type(exc).__name__}: {exc}"
        self.finished.append((key, None if exc is not None else future.result(), error))
        self.ready.set()

    async def exchange(self, jobs: list[Job]) -> list[Report]:
        """Start launches, then wait for outcomes: one round trip where the driver has both to do."""
        await self.start(jobs)
        return await self.outcomes()

    async def outcomes(self) -> list[Report]:
        """Every outcome since the last call (each after its record is durable); waits for at least one."""
        await self.ready.wait()
        await asyncio.sleep(0)  # the others of a shared write finish in the same turn of the loop: one reply
        self.ready.clear()
        out, self.finished = self.finished, []
        return out

    async def pid(self) -> int:
        """The launcher's process id (tests kill it)."""
        return os.getpid()

    async def drain(self) -> int:
        """Tear down this process's warm sandboxes, before the driver ends the launcher; how many pools it had."""
        return await asyncio.to_thread(drain_pools)


@dataclass(eq=False)
class _Launcher:
    """The driver's view of one launcher actor."""

    actor: Any
    running: dict[str, Future[Outcome]] = field(default_factory=dict)  # by key: sent, or to send
    unsent: list[Job] = field(default_factory=list)
    collecting: bool = False  # an `outcomes` call is open
    dead: bool = False


def _kill(actor: Any) -> None:
    try:
        ray.kill(actor, no_restart=True)
    except Exception:  # already gone
        pass


class RayExecutor:
    """Launches on Ray actors, started per profile when the executor is made (their start-up overlaps the driver's)."""

    def __init__(
        self,
        attempt_fn: AttemptFn,
        store_root: Path,
        *,
        slots: dict[str, int],
        resources: dict[str, dict[str, float]] | None = None,
        per_launcher: int | None = None,
        launcher_cpus: float = 0.0,
    ) -> None:
        self.attempt_fn = attempt_fn
        self.store_root = str(store_root)
        self.slots = slots
        self.resources = resources or {}
        self.per_launcher = per_launcher
        self.launcher_cpus = launcher_cpus
        self.pools: dict[str, list[_Launcher]] = {}
        self._lock = threading.Lock()
        for profile in slots:
            self._pool(profile)

    def launches_per_launcher(self, profile: str) -> int:
        """Launches one launcher of `profile` runs at once."""
        if self.per_launcher is not None:
            return max(1, self.per_launcher)
        return 1 if self.resources.get(profile) else LAUNCHER_SLOTS

    def _new_launcher(self, profile: str) -> _Launcher:
        actor = Launcher.options(  # type: ignore[attr-defined]
            num_cpus=self.launcher_cpus,
            resources=self.resources.get(profile) or None,
            max_restarts=0,  # a dead launcher is replaced by the executor, so no call ever meets a restarting one
            max_task_retries=0,  # the driver decides about retries, and counts them
        ).remote(self.attempt_fn, self.store_root, self.launches_per_launcher(profile))
        return _Launcher(actor)

    def _pool(self, profile: str) -> list[_Launcher]:
        if profile not in self.pools:
            n = max(1, -(-self.slots.get(profile, 1) // self.launches_per_launcher(profile)))
            self.pools[profile] = [self._new_launcher(profile) for _ in range(n)]
        return self.pools[profile]

    def launchers(self, profile: str) -> list[Any]:
        """The actor handles of a profile's pool."""
        with self._lock:
            return [launcher.actor for launcher in self._pool(profile)]

    def submit(self, job: Job) -> Future[Outcome]:
        """Queue a launch for the least loaded live launcher of its profile; `flush` sends it.

        A dead launcher is replaced here, so the retry that follows its loss lands on a fresh one.
        """
        future: Future[Outcome] = Future()
        profile = job.attempt.profile.name
        with self._lock:
            pool = self._pool(profile)
            for i, launcher in enumerate(pool):
                if launcher.dead:
                    _kill(launcher.actor)
                    pool[i] = self._new_launcher(profile)
            launcher = min(pool, key=lambda one: len(one.running))
            launcher.running[job.key] = future
            launcher.unsent.append(job)
        return future

    def flush(self) -> None:
        """Send each launcher its queued launches in one call; keep one collecting call open per busy launcher.

        Where no collecting call is open, one call does both.
        """
        calls: list[tuple[Future[Any], Any]] = []
        with self._lock:
            for pool in self.pools.values():
                for launcher in pool:
                    if launcher.dead or not launcher.running:
                        continue
                    jobs, launcher.unsent = launcher.unsent, []
                    if not launcher.collecting:
                        launcher.collecting = True
                        reports = launcher.actor.exchange.remote(jobs)
                        calls.append((reports.future(), functools.partial(self._collected, launcher)))
                    elif jobs:
                        sent = launcher.actor.start.remote(jobs)
                        calls.append((sent.future(), functools.partial(self._started, launcher)))
        # Outside the lock: a call that has already failed (its launcher died) runs its callback right here.
        for future, callback in calls:
            future.add_done_callback(callback)

    # Ray's callback thread runs these: no Ray call here (the driver's next flush collects again).

    def _started(self, launcher: _Launcher, done: Future[None]) -> None:
        exc = done.exception()
        if exc is not None:
            self._lost(launcher, exc)

    def _collected(self, launcher: _Launcher, done: Future[list[Report]]) -> None:
        exc = done.exception()
        if exc is not None:
            self._lost(launcher, exc)
            return
        settled: list[tuple[Future[Outcome], Report]] = []
        with self._lock:
            launcher.collecting = False
            for report in done.result():
                future = launcher.running.pop(report[0], None)
                if future is not None:
                    settled.append((future, report))
        for future, (_, outcome, error) in settled:
            if outcome is not None:
                future.set_result(outcome)
            else:
                future.set_exception(RuntimeError(error or "no outcome"))

    def _lost(self, launcher: _Launcher, exc: BaseException) -> None:
        """The launcher died (or would not take a batch): each launch it held fails, for the driver to retry."""
        with self._lock:
            launcher.dead, launcher.collecting = True, False
            lost, launcher.running, launcher.unsent = launcher.running, {}, []
        for future in lost.values():
            future.set_exception(exc)

    def shutdown(self, *, cancel: bool) -> None:
        """Kill the launchers (with cancel, the attempts they still run die with them).

        Without cancel, each first drains its warm sandbox pools (bounded: a launcher that does not answer leaves
        them to the owner-label janitor that runs when the sweep ends).
        """
        launchers = [launcher for pool in self.pools.values() for launcher in pool if not launcher.dead]
        if not cancel and launchers:
            drains = [launcher.actor.drain.remote() for launcher in launchers]
            with contextlib.suppress(Exception):
                ray.wait(drains, num_returns=len(drains), timeout=DRAIN_TIMEOUT_S)
        for pool in self.pools.values():
            for launcher in pool:
                _kill(launcher.actor)
        self.pools.clear()
