"""What a launcher does with one job, with no Ray in sight.

It runs the attempt function, decides between retry and record, and writes the record to the store (the truth).
MLflow is not on this path: the driver's mirror follows the store (cmb.store.MirrorProcess).

The attempt function is injectable: `(key, entry, context) -> RunRecord`. The default launches the real attempt
lifecycle exactly as `cmb run` does (cmb.runner.launch); tests and benchmarks pass fast fakes. It must be
importable by name (a module-level function), so Ray can ship it to launchers on other processes and nodes.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

from cmb import __version__
from cmb.catalog import TaskEntry
from cmb.models import AttemptOptions, ExitReason, FailureClass, ResourceProfile, RunKey, RunRecord
from cmb.scheduler._plan import Attempt
from cmb.settings import CmbSettings
from cmb.store import ResultStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AttemptContext:
    """Everything an attempt function needs beyond the key and the task."""

    profile: ResourceProfile
    options: AttemptOptions  # the sweep's, with its backend resolved
    settings: CmbSettings  # the driver's
    retry: int = 0  # 0 on the first launch; a retried launch reuses the key's deterministic sandbox name
    queued_at: datetime | None = None


AttemptFn = Callable[[RunKey, TaskEntry, AttemptContext], RunRecord]


@dataclass(frozen=True)
class Job:
    """One launch of one attempt; picklable."""

    attempt: Attempt
    retry: int
    max_retries: int
    spec_hash: str
    options: AttemptOptions
    settings: CmbSettings
    queued_at: datetime

    @property
    def key(self) -> str:
        """The attempt key as text."""
        return self.attempt.id

    def context(self) -> AttemptContext:
        """The attempt function's context for this launch."""
        return AttemptContext(
            profile=self.attempt.profile,
            options=self.options,
            settings=self.settings,
            retry=self.retry,
            queued_at=self.queued_at,
        )


@dataclass(frozen=True)
class Outcome:
    """What came of one launch, sent back to the driver (small: the record itself stays in the store)."""

    key: str
    status: Literal["done", "retry"]
    retries: int
    passed: bool | None = None
    failure_class: str | None = None
    cost: float | None = None  # model + compute; None when the model is unpriced
    model_cost_usd: float | None = None  # None: unpriced
    compute_cost_usd: float | None = None
    error: str | None = None
    seconds: float = 0.0


def resolve_attempt_fn(spec: str | None) -> AttemptFn:
    """'module:function' -> the function; None -> the real runner."""
    if not spec:
        return run_with_runner
    module, _, name = spec.partition(":")
    if not name:
        raise ValueError(f"attempt function {spec!r} must look like 'package.module:function'")
    fn = getattr(importlib.import_module(module), name)
    if not callable(fn):
        raise TypeError(f"{spec} is not callable")
    return fn  # type: ignore[no-any-return]


def run_with_runner(key: RunKey, entry: TaskEntry, ctx: AttemptContext) -> RunRecord:
    """The default attempt function: the real lifecycle, launched as `cmb run` launches it."""
    from cmb.runner import launch

    return launch(
        key,
        entry,
        ctx.options,
        ctx.settings,
        profile=ctx.profile,
        retries=ctx.retry,
        queued_at=ctx.queued_at,
        pooled=True,  # a sweep: the sandbox comes from the launcher's warm pool (settings.sandbox.warm_pool)
    )


def noop_attempt(key: RunKey, entry: TaskEntry, ctx: AttemptContext) -> RunRecord:
    """An attempt whose agent does nothing and is not graded: for benchmarks of the scheduler itself."""
    now = datetime.now(UTC)
    return RunRecord(
        key=key,
        study=entry.spec.study,
        kind=entry.spec.kind,
        started_at=now,
        finished_at=now,
        exit_reason=ExitReason.COMPLETED,
        retries=ctx.retry,
        resources=ctx.profile,
        raw_score=0.0,
        gated_score=0.0,
        passed=False,
        failure_class=FailureClass.FORMAT,
        task_hash="noop",
        grader_hash="noop",
        harness_version=__version__,
    )


def grader_hash_of(entry: TaskEntry) -> str:
    """The entry's grader hash, or a placeholder when the grader itself cannot be loaded."""
    try:
        from cmb.grading import grader_hash

        return grader_hash(entry.grader(), entry.reference())
    except Exception:  # a broken grader still gets its infrastructure record
        return "unavailable"


def infrastructure_record(attempt: Attempt, started_at: datetime, retries: int, error: str) -> RunRecord:
    """The record of an attempt whose every launch failed on infrastructure: never counted as the agent's."""
    entry = attempt.entry
    return RunRecord(
        key=attempt.key,
        study=entry.spec.study,
        kind=entry.spec.kind,
        started_at=started_at,
        finished_at=max(started_at, datetime.now(UTC)),
        exit_reason=ExitReason.INFRASTRUCTURE,
        retries=retries,
        resources=attempt.profile,
        audit_passed=False,
        audit_messages=[error[:2000]],
        raw_score=0.0,
        gated_score=0.0,
        passed=False,
        failure_class=FailureClass.INFRASTRUCTURE,
        task_hash=entry.task_hash(),
        grader_hash=grader_hash_of(entry),
        harness_version=__version__,
    )


def record_outcome(record: RunRecord, retries: int, seconds: float) -> Outcome:
    """The driver's summary of a stored record."""
    usage = record.usage
    model_cost = usage.model_cost_usd if usage.requests else (usage.model_cost_usd or 0.0)  # no calls: free
    cost = None if model_cost is None else model_cost + (record.compute_cost_usd or 0.0)
    return Outcome(
        key=str(record.key),
        status="done",
        retries=retries,
        passed=record.passed,
        failure_class=record.failure_class.value if record.failure_class else None,
        cost=cost,
        model_cost_usd=model_cost,
        compute_cost_usd=record.compute_cost_usd,
        seconds=seconds,
    )


STORE_PATIENCE_S = 600.0  # how long a finished attempt waits for a full or failing store before it is relaunched
MAX_STORE_DELAY_S = 30.0


def write_patiently(record: RunRecord, store: ResultStore, spec_hash: str, patience_s: float = STORE_PATIENCE_S) -> str:
    """Write the record, waiting out a store that is full or failing (ENOSPC, EIO) with backoff.

    The attempt already ran: relaunching it would spend its compute and model tokens again, so its record waits
    in memory until the store takes it; only after `patience_s` does the error reach the driver (a relaunch).
    The store returns once the record is durable: only then may the attempt count as done.
    """
    deadline = time.monotonic() + patience_s
    delay = 1.0
    while True:
        try:
            return store.write(record, spec_hash=spec_hash)
        except OSError as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("could not store %s (%s); trying again in %.0f s", record.key, exc, delay)
            time.sleep(delay)
            delay = min(MAX_STORE_DELAY_S, delay * 2)


def execute(job: Job, attempt_fn: AttemptFn, store: ResultStore) -> Outcome:
    """Run one launch and store its record, or ask the driver for a retry.

    An infrastructure failure (an exception, or a record classed `infrastructure`) asks for a retry while retries
    are left, and is recorded with its retry count once they are spent; any other outcome is the agent's and is
    recorded as it is, never retried.
    """
    started = datetime.now(UTC)
    t0 = time.monotonic()
    record: RunRecord | None
    try:
        record = attempt_fn(job.attempt.key, job.attempt.entry, job.context())
        error = None if record.failure_class is not FailureClass.INFRASTRUCTURE else record.exit_reason.value
    except Exception as exc:  # the harness or the sandbox failed: never the agent's doing
        record, error = None, f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - t0
    infra = record is None or record.failure_class is FailureClass.INFRASTRUCTURE
    if infra and job.retry < job.max_retries:
        return Outcome(key=job.key, status="retry", retries=job.retry, error=error, seconds=seconds)
    if record is None:
        record = infrastructure_record(job.attempt, started, job.retry, error or "unknown")
    record = record.model_copy(update={"retries": job.retry})
    write_patiently(record, store, job.spec_hash)
    outcome = record_outcome(record, job.retry, seconds)
    return outcome if error is None else replace(outcome, error=error)
