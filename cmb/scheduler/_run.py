"""`run_sweep`: one driver session of a sweep, from spec to summary."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, TextIO

from cmb.catalog import Catalog
from cmb.models import AttemptOptions, SweepSpec
from cmb.runner import preflight
from cmb.sandbox import cleanup_backend, resolve_backend
from cmb.scheduler._attempt import AttemptFn, mirror_from, resolve_attempt_fn, run_with_runner
from cmb.scheduler._driver import Executor, SlotPolicy, SweepDriver, SweepSummary
from cmb.scheduler._metrics import SweepMetrics
from cmb.scheduler._plan import Attempt, plan
from cmb.scheduler._progress import Progress, ProgressDisplay
from cmb.scheduler._sweepdir import SweepDir
from cmb.scheduler._threads import ThreadExecutor
from cmb.settings import CmbSettings
from cmb.store import MlflowConfig, MlflowMirror, ParquetStore, ResultStore, default_tracking_uri

log = logging.getLogger(__name__)

ExecutorKind = Literal["ray", "threads"]


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


def _initialise_mirror(config: MlflowConfig | None, display: ProgressDisplay) -> MlflowConfig | None:
    """Create the MLflow schema, experiment and parent run once, before any launcher logs concurrently."""
    if config is None:
        return None
    try:
        parent = MlflowMirror(config).initialise()
    except Exception as exc:
        display.message(f"MLflow unavailable ({type(exc).__name__}: {exc}); results go to Parquet only, "
                        f"replay them later with `cmb mlflow-sync {config.experiment}`")  # fmt: skip
        return None
    return replace(config, parent_run_id=parent)


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
    per_launcher: int = 1,
    progress: bool = True,
    stream: TextIO | None = None,
) -> SweepSummary:
    """Run (or resume) a sweep until every attempt has a record, or until interrupted.

    Attempts already in the store are skipped, so a resumed sweep neither loses nor repeats work; a resume with a
    changed spec is refused. Results are written by the launchers to the Parquet store under CMB_HOME/results and
    mirrored to MLflow; at the end the mirror is synchronised from Parquet, so nothing MLflow missed is lost.
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
    try:
        sweep_dir.prepare(spec, resume=resume)
        parquet_root = home / "results"
        results = store if store is not None else ParquetStore(parquet_root)
        done = results.done_keys(spec.name)
        todo = [a for a in attempts if a.id not in done]
        skipped = len(attempts) - len(todo)
        display = ProgressDisplay(Progress(total=len(attempts)), stream, enabled=progress)
        config = _initialise_mirror(mlflow_config(spec, home, mlflow_uri), display)
        profiles = sorted({a.profile.name for a in attempts})
        slots = {name: spec.slots(name) for name in profiles}
        policy = SlotPolicy(slots, spec.max_concurrency)
        pool: Executor
        if executor == "ray":
            from cmb.scheduler import _ray

            started_ray = _ray.connect(address, num_cpus=num_cpus)
            if store is not None and not isinstance(store, ParquetStore):
                raise ValueError("the Ray executor writes to a Parquet store; use executor='threads' for others")
            pool = _ray.RayExecutor(
                fn, parquet_root, config, slots=slots, resources=spec.launcher_resources, per_launcher=per_launcher
            )
        else:
            pool = ThreadExecutor(fn, results, config, max_workers=spec.max_concurrency)
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
            mirror=lambda: mirror_from(config),
            display=display,
            metrics=SweepMetrics.for_ray(spec.name),  # a no-op recorder where Ray does not run here
        )
        real = fn is run_with_runner
        if real:
            _janitor(options.backend, settings, display)  # what a killed driver's launchers left behind
        with _signals(driver):  # before this, Ctrl-C aborts at once: nothing has been launched yet
            summary = driver.run()
        if real:
            _janitor(options.backend, settings, display)  # what launchers killed at shutdown left behind
        if started_ray:
            from cmb.scheduler import _ray

            _ray.disconnect()
            started_ray = False
        summary.sweep = spec.name
        if config is not None and driver.interrupts < 2:
            summary.mlflow = _final_sync(config, results, spec.name, display)
        return summary
    finally:
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


def _final_sync(config: MlflowConfig, store: ResultStore, sweep: str, display: ProgressDisplay) -> Any:
    """Replay whatever MLflow missed (it was down, slow, or a launcher died) and log the sweep's aggregates."""
    try:
        report = MlflowMirror(config).sync(store, sweep, finished=True)
    except Exception as exc:
        display.message(f"MLflow sync failed ({type(exc).__name__}: {exc}); run `cmb mlflow-sync {sweep}` later")
        return None
    if report.failed:
        display.message(f"MLflow sync: {report.failed} attempts not mirrored; run `cmb mlflow-sync {sweep}` later")
    return report
