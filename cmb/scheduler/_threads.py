"""An executor of launches on threads of this process: for tests and small local sweeps, no Ray needed."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from cmb.scheduler._attempt import AttemptFn, Job, Outcome, execute, mirror_from
from cmb.store import MlflowConfig, MlflowMirror, ResultStore


class ThreadExecutor:
    """Each launch runs `execute` on a worker thread; each thread keeps its own MLflow client."""

    def __init__(
        self, attempt_fn: AttemptFn, store: ResultStore, mirror: MlflowConfig | None, max_workers: int
    ) -> None:
        self.attempt_fn = attempt_fn
        self.store = store
        self.mirror_config = mirror
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="cmb-launcher")
        self._local = threading.local()

    def _mirror(self) -> MlflowMirror | None:
        if not hasattr(self._local, "mirror"):
            self._local.mirror = mirror_from(self.mirror_config)
        mirror: MlflowMirror | None = self._local.mirror
        return mirror

    def _run(self, job: Job) -> Outcome:
        return execute(job, self.attempt_fn, self.store, self._mirror())

    def submit(self, job: Job) -> Future[Outcome]:
        """Run one launch on a thread."""
        return self.pool.submit(self._run, job)

    def shutdown(self, *, cancel: bool) -> None:
        """Stop the pool; threads already running an attempt cannot be killed and finish in the background."""
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
