"""`run_sweep`: one driver session of a sweep, from spec to summary."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TextIO

from cmb.catalog import Catalog
from cmb.models import AttemptOptions, SweepSpec
from cmb.runner import preflight
from cmb.sandbox import cleanup_backend, drain_pools, resolve_backend
from cmb.scheduler._attempt import AttemptFn, resolve_attempt_fn, run_with_runner
from cmb.scheduler._driver import Executor, SlotPolicy, SweepDriver, SweepSummary
from cmb.scheduler._metrics import SweepMetrics
from cmb.scheduler._plan import Attempt, plan
from cmb.scheduler._progress import Progress, ProgressDisplay
from cmb.scheduler._sweepdir import SweepDir
from cmb.scheduler._threads import ThreadExecutor
from cmb.settings import CmbSettings
from cmb.store import (
    MirrorProcess,
    MirrorThread,
    MlflowConfig,
    ParquetStore,
    ResultStore,
    SyncReport,
    default_tracking_uri,
)

log = logging.getLogger(__name__)

ExecutorKind = Literal["ray", "threads"]
MLFLOW_WAIT_S = 120.0  # the longest a finished sweep waits for its MLflow mirror to catch up


def checked_plan(spec: SweepSpec, settings: CmbSettings, options: AttemptOptions, *, runner: bool) -> list[Attempt]:
    """The sweep's attempts, once every name in it is known; else a LaunchError, before anything has started.

    Names checked: tasks and studies, the backend, the graders' check types, and the agents when the runner
    launches them (a custom attempt function reads agent names its own way).
    """
    attempts = plan(spec, Catalog.load(settings.root))
    entries = {a.entry.id: a.entry for a in attempts}.values()
    preflight(spec.agents if runner else None, spec.backend, entries, options, settings)
    return attempts


def mlflow_config(spec: SweepSpec, home: Path, uri: str | None) -> MlflowConfig | None:
    """The sweep's MLflow target: None/'' = embedded sqlite in CMB_HOME, 'none' = no mirror, else the URI."""
    if uri is not None and uri.lower() in {"none", "off", "false"}:
        return None
    params = {
        "agents": ",".join(spec.agents),
        "tasks": ",".join(spec.tasks),
        "conditions": ",".join(c.value for c in spec.conditions),
        "trials": str(spec.trials),
        "backend": spec.backend,
        "max_retries": str(spec.max_retries),
        "spec_hash": spec.spec_hash(),
    }
    return MlflowConfig(
        tracking_uri=uri or default_tracking_uri(home),
        experiment=spec.name,
        home=home,
        spec_hash=spec.spec_hash(),
        params=params,
    )


@contextmanager
def _signals(driver: SweepDriver) -> Iterator[None]:
    """Ctrl-C and SIGTERM become driver interrupts (only the main thread may install handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_int(signum: int, frame: Any) -> None:
        driver.interrupt()

    def on_term(signum: int, frame: Any) -> None:
        driver.interrupt()
        driver.interrupt()

    old_int = signal.signal(signal.SIGINT, on_int)
    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def _start_mirror(
    config: MlflowConfig | None, store: ResultStore, sweep_dir: SweepDir
) -> MirrorProcess | MirrorThread | None:
    """The follower that mirrors the sweep's store into MLflow: a child process for a Parquet store."""
    if config is None:
        return None
    if isinstance(store, ParquetStore):
        return MirrorProcess(config, store.root, config.experiment, sweep_dir.path / "mlflow-mirror.log")
    return MirrorThread(config, store, config.experiment)


def run_sweep(
    spec: SweepSpec,
    *,
    settings: CmbSettings,
    resume: bool = False,
    store: ResultStore | None = None,
    attempt_fn: AttemptFn | str | None = None,
    executor: ExecutorKind = "ray",
    address: str | None = None,
    num_cpus: int | None = None,
    mlflow_uri: str | None = None,
    options: AttemptOptions | None = None,
    per_launcher: int | None = None,
    progress: bool = True,
    stream: TextIO | None = None,
    mlflow_wait_s: float = MLFLOW_WAIT_S,
) -> SweepSummary:
    """Run (or resume) a sweep until every attempt has a record, or until interrupted.

    Attempts already in the store are skipped, so a resumed sweep neither loses nor repeats work; a resume with a
    changed spec is refused. Results are written by the launchers to the Parquet store under CMB_HOME/results;
    a mirror process follows the store into MLflow meanwhile (no attempt waits for MLflow), and the sweep's end
    waits at most `mlflow_wait_s` for it to catch up: what it left, `cmb mlflow-sync` replays.
    `per_launcher`: launches per Ray launcher actor (None: see `_ray`).
    Unknown names (agents, tasks, backend, check types) are refused before anything starts.
    """
    home = settings.store.home
    fn = attempt_fn if callable(attempt_fn) else resolve_attempt_fn(attempt_fn)
    options = options or AttemptOptions()
    attempts = checked_plan(spec, settings, options, runner=fn is run_with_runner)
    options = options.model_copy(update={"backend": resolve_backend(spec.backend)})
    mlflow_uri = mlflow_uri if mlflow_uri is not None else settings.store.mlflow_uri
    sweep_dir = SweepDir(home, spec.name)
    sweep_dir.lock()
    started_ray = False
    mirror: MirrorProcess | MirrorThread | None = None
    try:
        sweep_dir.prepare(spec, resume=resume)
        parquet_root = home / "results"
        results = store if store is not None else ParquetStore(parquet_root)
        profiles = sorted({a.profile.name for a in attempts})
        slots = {name: spec.slots(name) for name in profiles}
        policy = SlotPolicy(slots, spec.max_concurrency, spec.slot_weights)
        pool: Executor
        if executor == "ray":  # first: the launchers start while the driver reads the store
            from cmb.scheduler import _ray

            if store is not None and not isinstance(store, ParquetStore):
                raise ValueError("the Ray executor writes to a Parquet store; use executor='threads' for others")
            started_ray = _ray.connect(address, num_cpus=num_cpus)
            pool = _ray.RayExecutor(
                fn, parquet_root, slots=slots, resources=spec.launcher_resources, per_launcher=per_launcher
            )
        else:
            pool = ThreadExecutor(fn, results, max_workers=spec.max_concurrency)
        done = results.done_keys(spec.name)
        todo = [a for a in attempts if a.id not in done]
        skipped = len(attempts) - len(todo)
        display = ProgressDisplay(Progress(total=len(attempts)), stream, enabled=progress)
        mirror = _start_mirror(mlflow_config(spec, home, mlflow_uri), results, sweep_dir)
        driver = SweepDriver(
            todo,
            pool,
            results,
            spec_hash=spec.spec_hash(),
            policy=policy,
            max_retries=spec.max_retries,
            retry_backoff_s=spec.retry_backoff_s,
            options=options,
            settings=settings,
            total=len(attempts),
            skipped=skipped,
            mlflow_pending=mirror.pending if mirror is not None else None,
            display=display,
            metrics=SweepMetrics.for_ray(spec.name),  # a no-op recorder where Ray does not run here
        )
        real = fn is run_with_runner
        if real:
            _janitor(options.backend, settings, display)  # what a killed driver's launchers left behind
        with _signals(driver):  # before this, Ctrl-C aborts at once: nothing has been launched yet
            summary = driver.run()
        drain_pools()  # the warm sandboxes of launchers on threads (Ray launchers drain theirs before they end)
        if real:
            _janitor(options.backend, settings, display)  # what launchers killed at shutdown left behind
        if started_ray:
            from cmb.scheduler import _ray

            _ray.disconnect()
            started_ray = False
        summary.sweep = spec.name
        if mirror is not None:
            t0 = time.monotonic()
            summary.mlflow = _close_mirror(mirror, spec.name, display, mlflow_wait_s if driver.interrupts < 2 else 0)
            summary.mlflow_wait_s = time.monotonic() - t0
            mirror = None
        return summary
    finally:
        if mirror is not None:  # an error: end the mirror now, `cmb mlflow-sync` catches up
            mirror.close(0.0)
        if started_ray:  # an error or an early Ctrl-C: do not leave a local Ray behind
            from cmb.scheduler import _ray

            _ray.disconnect()
        sweep_dir.unlock()


def _janitor(backend: str, settings: CmbSettings, display: ProgressDisplay) -> None:
    """Remove sandboxes whose harness process died (never one of a live harness); a failure only warns."""
    try:
        removed = cleanup_backend(backend, settings)
    except Exception as exc:  # noqa: BLE001 - leftovers cost disk, not results
        display.message(f"could not clean up sandboxes left behind ({type(exc).__name__}: {exc})")
        return
    if removed:
        display.message(f"removed {len(removed)} sandbox objects left behind by a dead harness")


def _close_mirror(
    mirror: MirrorProcess | MirrorThread, sweep: str, display: ProgressDisplay, wait_s: float
) -> SyncReport:
    """Let the mirror catch up for at most `wait_s`, and say what it left for `cmb mlflow-sync`."""
    if mirror.pending():
        display.message(f"MLflow: waiting up to {wait_s:.0f} s for the mirror ({mirror.pending()} attempts behind)")
    report = mirror.close(wait_s)
    if report.pending or report.failed or report.errors:
        left = f"{report.pending} attempts not mirrored" if report.pending else "the mirror did not finish"
        why = f" ({report.errors[-1]})" if report.errors else ""
        display.message(f"MLflow: {left}{why}; `cmb mlflow-sync {sweep}` catches up")
    return report
