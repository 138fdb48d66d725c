"""An executor of launches on threads of this process: for tests and small local sweeps, no Ray needed."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from cmb.scheduler._attempt import AttemptFn, Job, Outcome, execute
from cmb.store import ResultStore


class ThreadExecutor:
    """Each launch runs `execute` on a worker thread; records finishing together share a store write."""

    def __init__(self, attempt_fn: AttemptFn, store: ResultStore, max_workers: int) -> None:
        self.attempt_fn = attempt_fn
        self.store = store
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="cmb-launcher")

    def submit(self, job: Job) -> Future[Outcome]:
        """Run one launch on a thread."""
        return self.pool.submit(execute, job, self.attempt_fn, self.store)

    def flush(self) -> None:
        """Nothing waits: a launch starts when it is submitted."""

    def shutdown(self, *, cancel: bool) -> None:
        """Stop the pool; threads already running an attempt cannot be killed and finish in the background."""
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
