"""The sweep driver.

It feeds attempts to an executor through resource slots per profile, with backpressure; retries infrastructure
failures with backoff; records what could not be retried; and stops cleanly.

Executors are pluggable: threads in this process (tests, tiny sweeps) or Ray launcher actors (`_ray.py`). The
driver itself never imports Ray, so its logic is tested without it.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from cmb.models import AttemptOptions
from cmb.scheduler._attempt import Job, Outcome, infrastructure_record, write_patiently
from cmb.scheduler._metrics import SweepMetrics
from cmb.scheduler._plan import Attempt
from cmb.scheduler._progress import Progress, ProgressDisplay
from cmb.settings import CmbSettings
from cmb.store import ResultStore, SyncReport

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 60.0


class Executor(Protocol):
    """Runs jobs somewhere and hands back futures of their outcomes."""

    def submit(self, job: Job) -> Future[Outcome]:
        """Start one launch (or queue it for the next `flush`)."""
        ...

    def flush(self) -> None:
        """Send what was submitted since the last call (the driver calls it once per turn of its loop)."""
        ...

    def shutdown(self, *, cancel: bool) -> None:
        """Release the workers; with cancel, abandon what still runs."""
        ...


class SlotPolicy:
    """Resource slots per profile plus an overall cap: an attempt starts only when both have room.

    Against the cap, an attempt of a profile counts as its weight (default 1): on one node pool shared by single
    tasks and node-exclusive workflows, a workflow weighs the single-task attempts its node would hold.
    """

    def __init__(self, limits: dict[str, int], total: int, weights: dict[str, int] | None = None) -> None:
        self.limits = dict(limits)
        self.total = total
        self.weights = dict(weights or {})
        self.used: dict[str, int] = dict.fromkeys(limits, 0)

    def taken(self) -> int:
        """Slots of the overall cap in use."""
        return sum(n * self.weights.get(p, 1) for p, n in self.used.items())

    def can_start(self, profile: str) -> bool:
        """Whether one more attempt of `profile` fits."""
        fits = self.taken() + self.weights.get(profile, 1) <= self.total
        return fits and self.used.get(profile, 0) < self.limits.get(profile, 0)

    def start(self, profile: str) -> None:
        """Take a slot."""
        self.used[profile] = self.used.get(profile, 0) + 1

    def finish(self, profile: str) -> None:
        """Give a slot back."""
        self.used[profile] -= 1


def backoff_s(base: float, retry: int) -> float:
    """Delay before launch number `retry` (1-based): base, 2 base, 4 base ... capped."""
    return float(min(MAX_BACKOFF_S, base * 2.0 ** max(0, retry - 1)))


@dataclass
class SweepSummary:
    """How a driver session ended."""

    sweep: str
    total: int
    skipped: int
    done: int
    passed: int
    infrastructure: int
    retries: int
    cost: float
    interrupted: bool
    pass_rate: float | None
    mlflow: SyncReport | None = None
    mlflow_wait_s: float = 0.0  # how long the end of the sweep waited for the MLflow mirror
    errors: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every attempt of the sweep has a record."""
        return not self.interrupted and self.skipped + self.done == self.total


class SweepDriver:
    """One session of one sweep."""

    def __init__(
        self,
        attempts: Iterable[Attempt],
        executor: Executor,
        store: ResultStore,
        *,
        spec_hash: str,
        policy: SlotPolicy,
        max_retries: int,
        retry_backoff_s: float,
        options: AttemptOptions,
        settings: CmbSettings,
        total: int,
        skipped: int = 0,
        mlflow_pending: Callable[[], int] | None = None,
        display: ProgressDisplay | None = None,
        metrics: SweepMetrics | None = None,
    ) -> None:
        self.executor = executor
        self.store = store
        self.spec_hash = spec_hash
        self.policy = policy
        self.max_retries = max_retries
        self.retry_backoff_s = retry_backoff_s
        self.options = options
        self.settings = settings
        self.mlflow_pending = mlflow_pending or (lambda: 0)
        self.progress = Progress(total=total, skipped=skipped)
        self.display = display or ProgressDisplay(self.progress, enabled=False)
        self.display.progress = self.progress
        # The live dashboard's figures (Ray metrics); a no-op recorder without Ray.
        self.metrics = metrics or SweepMetrics("")
        self.queues: dict[str, deque[Job]] = {}
        self.order: list[str] = []  # profiles, longest time limit first
        self.delayed: list[tuple[float, int, Job]] = []
        # After an infrastructure failure a profile's dispatch pauses (backoff on consecutive failures): a backend
        # that is down for a while must not burn the retries of every queued attempt in seconds.
        self.held_until: dict[str, float] = {}
        self.failing: dict[str, int] = {}
        self.running: dict[Future[Outcome], Job] = {}
        self.first_started: dict[str, datetime] = {}
        self.interrupts = 0
        self.errors: list[str] = []
        self._seq = itertools.count()
        now = datetime.now(UTC)
        limits: dict[str, int] = {}
        for attempt in attempts:
            name = attempt.profile.name
            if name not in self.queues:
                self.queues[name] = deque()
                self.order.append(name)
                limits[name] = attempt.profile.time_limit_s
            self.queues[name].append(self._job(attempt, 0, now))
        self.order.sort(key=lambda n: -limits[n])

    def _job(self, attempt: Attempt, retry: int, queued_at: datetime) -> Job:
        return Job(
            attempt=attempt,
            retry=retry,
            max_retries=self.max_retries,
            spec_hash=self.spec_hash,
            options=self.options,
            settings=self.settings,
            queued_at=queued_at,
        )

    # control ---------------------------------------------------------------------------------------------------

    def interrupt(self) -> None:
        """Ctrl-C: the first stops dispatching and lets running attempts finish; the second abandons them."""
        self.interrupts += 1
        if self.interrupts == 1:
            self.display.message(
                f"stopping: no new attempts; waiting for {len(self.running)} running to finish "
                "(Ctrl-C again to abandon them; `--resume` runs them again)"
            )
        elif self.interrupts == 2:
            self.display.message("abandoning running attempts")

    @property
    def stopping(self) -> bool:
        """Whether dispatching has stopped."""
        return self.interrupts > 0

    # the loop --------------------------------------------------------------------------------------------------

    def _pending(self) -> bool:
        return any(self.queues.values()) or bool(self.delayed)

    def _dispatch(self) -> None:
        now = time.monotonic()
        while self.delayed and self.delayed[0][0] <= now:
            _, _, job = heapq.heappop(self.delayed)
            self.queues[job.attempt.profile.name].appendleft(job)
        for name in self.order:
            queue = self.queues[name]
            if self.held_until.get(name, 0.0) > now:
                continue
            while queue and self.policy.can_start(name):
                job = queue.popleft()
                self.first_started.setdefault(job.key, datetime.now(UTC))
                try:
                    future = self.executor.submit(job)
                except Exception as exc:  # the executor itself is broken: treat like a lost launcher
                    future = Future()
                    future.set_exception(exc)
                self.policy.start(name)
                self.running[future] = job
                self.progress.running += 1
                self.metrics.started(job.attempt.key.agent, job.attempt.key.condition.value)
        self.metrics.queue(sum(map(len, self.queues.values())) + len(self.delayed))

    def run(self) -> SweepSummary:
        """Dispatch until every attempt has a record, or until interrupted."""
        aborted = False
        try:
            while True:
                if self.interrupts >= 2:
                    aborted = True
                    break
                if not self.stopping:
                    self._dispatch()
                self.executor.flush()
                if not self.running and (self.stopping or not self._pending()):
                    break
                timeout = 0.5
                if self.delayed and not self.stopping:
                    timeout = max(0.01, min(timeout, self.delayed[0][0] - time.monotonic()))
                held = [t for t in self.held_until.values() if t > time.monotonic()]
                if held and not self.stopping:
                    timeout = max(0.01, min(timeout, min(held) - time.monotonic()))
                if self.running:
                    finished, _ = wait(list(self.running), timeout=timeout, return_when=FIRST_COMPLETED)
                else:
                    time.sleep(timeout)
                    finished = set()
                for future in finished:
                    self._collect(future)
                self.progress.mlflow_pending = self.mlflow_pending()
                self.display.update()
                self.metrics.refresh()
        finally:
            self.executor.shutdown(cancel=aborted or bool(self.running))
        self.display.close()
        p = self.progress
        return SweepSummary(
            sweep="",
            total=p.total,
            skipped=p.skipped,
            done=p.done,
            passed=p.passed,
            infrastructure=p.infrastructure,
            retries=p.retries,
            cost=p.cost,
            interrupted=self.stopping,
            pass_rate=p.pass_rate(),
            errors=self.errors,
        )

    # outcomes --------------------------------------------------------------------------------------------------

    def _collect(self, future: Future[Outcome]) -> None:
        job = self.running.pop(future)
        self.policy.finish(job.attempt.profile.name)
        self.progress.running -= 1
        exc = future.exception()
        outcome = future.result() if exc is None else None
        self._measured(job, outcome)
        if outcome is None:
            self._launcher_lost(job, exc or RuntimeError("no outcome"))
            return
        if outcome.status == "retry":
            self._retry(job, outcome.error or "infrastructure failure")
        else:
            if outcome.failure_class != "infrastructure":
                self.failing[job.attempt.profile.name] = 0
            self._finished(outcome)

    def _measured(self, job: Job, outcome: Outcome | None) -> None:
        """One launch ended: a retried or lost launch counts as an infrastructure outcome on the dashboard."""
        key = job.attempt.key
        done = outcome if outcome is not None and outcome.status == "done" else None
        self.metrics.finished(
            key.agent,
            key.condition.value,
            passed=done.passed if done else None,
            failure_class=done.failure_class if done else "infrastructure",
            model_cost_usd=done.model_cost_usd if done else 0.0,
            compute_cost_usd=done.compute_cost_usd if done else None,
            seconds=outcome.seconds if outcome else 0.0,
        )

    def _hold(self, profile: str) -> float:
        """Pause the profile's dispatch after an infrastructure failure; returns the pause in s."""
        self.failing[profile] = self.failing.get(profile, 0) + 1
        pause = backoff_s(self.retry_backoff_s, self.failing[profile])
        self.held_until[profile] = max(self.held_until.get(profile, 0.0), time.monotonic() + pause)
        return pause

    def _finished(self, outcome: Outcome) -> None:
        self.progress.finished(outcome.passed, outcome.failure_class, outcome.cost)

    def _retry(self, job: Job, error: str) -> None:
        self.progress.retries += 1
        if self.stopping:
            return  # not relaunched in this session; --resume runs it
        retry = job.retry + 1
        delay = max(backoff_s(self.retry_backoff_s, retry), self._hold(job.attempt.profile.name))
        self.display.message(f"retry {retry}/{self.max_retries} of {job.key} in {delay:.0f}s: {error[:300]}")
        relaunch = self._job(job.attempt, retry, job.queued_at)
        heapq.heappush(self.delayed, (time.monotonic() + delay, next(self._seq), relaunch))

    def _launcher_lost(self, job: Job, exc: BaseException) -> None:
        """The launcher died (actor killed, node lost): an infrastructure failure.

        If it had stored the record before dying, that record stands; otherwise retry, or record the failure once
        retries are spent.
        """
        error = f"launcher lost: {type(exc).__name__}: {str(exc)[:500]}"
        if self.store.has(job.key):
            self._finished(Outcome(key=job.key, status="done", retries=job.retry))
            return
        if job.retry < self.max_retries:
            self._retry(job, error)
            return
        started = self.first_started.get(job.key, datetime.now(UTC))
        record = infrastructure_record(job.attempt, started, job.retry, error)
        try:
            write_patiently(record, self.store, self.spec_hash)
        except Exception as write_error:
            self.errors.append(f"{job.key}: could not record the infrastructure failure: {write_error}")
            return
        self._finished(Outcome(key=job.key, status="done", retries=job.retry, passed=False,
                               failure_class=record.failure_class.value if record.failure_class else None))  # fmt: skip
