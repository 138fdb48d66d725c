"""Sweeps at scale: plan, driver, launchers (threads or Ray actors), retries, resume, progress, job submission.

This package is the only one that imports Ray, and only in `_ray` and `_submit`, loaded on demand: importing
`cmb.scheduler` does not import Ray.
"""

from cmb.scheduler._attempt import (
    AttemptContext,
    AttemptFn,
    Job,
    Outcome,
    execute,
    infrastructure_record,
    noop_attempt,
    resolve_attempt_fn,
    run_with_runner,
)
from cmb.scheduler._driver import Executor, SlotPolicy, SweepDriver, SweepSummary, backoff_s
from cmb.scheduler._plan import Attempt, condition_list, load_spec, name_list, plan, priority
from cmb.scheduler._progress import Progress, ProgressDisplay
from cmb.scheduler._run import checked_plan, mlflow_config, run_sweep
from cmb.scheduler._sweepdir import SweepDir, SweepStateError
from cmb.scheduler._threads import ThreadExecutor

__all__ = [
    "Attempt",
    "AttemptContext",
    "AttemptFn",
    "Executor",
    "Job",
    "Outcome",
    "Progress",
    "ProgressDisplay",
    "SlotPolicy",
    "SweepDir",
    "SweepDriver",
    "SweepStateError",
    "SweepSummary",
    "ThreadExecutor",
    "backoff_s",
    "checked_plan",
    "condition_list",
    "execute",
    "infrastructure_record",
    "load_spec",
    "mlflow_config",
    "name_list",
    "noop_attempt",
    "plan",
    "priority",
    "resolve_attempt_fn",
    "run_sweep",
    "run_with_runner",
]
