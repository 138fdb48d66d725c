"""`cmb sweep`, `cmb mlflow-sync` and `cmb compact`: run sweeps, replay results into MLflow, fold result files.

The scheduler (and with it Ray and MLflow) is imported inside the commands, so `cmb --help` stays fast.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from cmb.cli._choices import BACKEND
from cmb.cli._main import cli
from cmb.settings import CmbSettings


def _concurrency(text: str | None) -> dict[str, int] | None:
    if not text:
        return None
    out: dict[str, int] = {}
    for pair in text.split(","):
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip().isdigit():
            raise click.BadParameter(f"{pair!r} is not PROFILE=N", param_hint="--concurrency")
        out[name.strip()] = int(value)
    return out


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in values:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint=option)
        out[name.strip()] = value
    return out


def _runtime_args(**flags: Any) -> list[str]:
    """The flags a submitted Ray job passes on to `cmb sweep` on the cluster."""
    args: list[str] = []
    for name, value in flags.items():
        if value is None or value is False:
            continue
        option = "--" + name.replace("_", "-")
        args += [option] if value is True else [option, str(value)]
    return args


@cli.command("sweep")
@click.argument("spec_file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--agents", default=None, help="Comma-separated registered agents (`cmb agents list`), e.g. oracle,null.")
@click.option(
    "--model",
    default=None,
    help="Model <upstream>/<name> for every agent given without one (codeact becomes codeact@<upstream>:<name>).",
)
@click.option("--tasks", default=None, help="'all', comma-separated task ids, or study:NAME (overrides the spec).")
@click.option("--conditions", default=None, help="Comma-separated conditions among SF,SR,WF,WR (overrides the spec).")
@click.option("--trials", type=click.IntRange(min=1), default=None, help="Repeats per agent, task and condition.")
@click.option(
    "--backend",
    type=BACKEND,
    default=None,
    help="A registered sandbox backend (`cmb backends list`); auto = docker when a daemon answers, else local.",
)
@click.option("--sweep-id", default=None, help="Sweep name; default: the spec's name, else sweep-<UTC time>.")
@click.option(
    "--resume", is_flag=True, help="Finish an interrupted sweep: run only what has no record; refuses a changed spec."
)
@click.option(
    "--address",
    default=None,
    envvar="CMB_RAY_ADDRESS",
    show_envvar=True,
    help="Ray cluster to join (host:6379, ray://host:10001 or auto); default: start Ray locally.",
)
@click.option(
    "--submit",
    "submit_to",
    default=None,
    metavar="DASHBOARD_URL",
    help="Submit the sweep as a Ray job to a remote cluster (e.g. http://head:8265) and follow its logs.",
)
@click.option("--no-wait", is_flag=True, help="With --submit: return once the job is submitted.")
@click.option(
    "--mlflow-uri",
    default=None,
    help="MLflow tracking URI (a server); default: CMB_MLFLOW_URI, else sqlite CMB_HOME/mlflow.db; 'none' "
    "disables the mirror.",
)
@click.option("--max-concurrency", type=click.IntRange(min=1), default=None, help="Attempts running at once in all.")
@click.option(
    "--concurrency", default=None, metavar="PROFILE=N,...", help="Slots per resource profile, e.g. single=8,workflow=2."
)
@click.option("--max-retries", type=click.IntRange(min=0), default=None, help="Infrastructure retries per attempt.")
@click.option(
    "--image", default=None, help="Agent image for the docker and kubernetes backends; default: CMB_SANDBOX_IMAGE."
)
@click.option("--gateway-url", default=None, help="Model gateway base URL; default: CMB_GATEWAY_URL.")
@click.option(
    "--executor",
    type=click.Choice(["ray", "threads"]),
    default="ray",
    help="Launchers on Ray actors, or on threads of this process (small local sweeps, no Ray).",
)
@click.option("--num-cpus", type=click.IntRange(min=1), default=None, help="CPUs of a Ray instance started locally.")
@click.option(
    "--attempt-fn",
    default=None,
    metavar="MODULE:FUNCTION",
    help="Attempt function replacing the runner (tests, custom harnesses); must be importable by workers.",
)
@click.option(
    "--attempt-option",
    "attempt_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Passed to the attempt function in its context's options (repeatable).",
)
@click.option("--progress/--no-progress", default=True, help="Live progress line on stderr.")
@click.option("--dry-run", is_flag=True, help="Print the attempts the sweep would run, and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.pass_context
def sweep_cmd(
    ctx: click.Context,
    spec_file: Path | None,
    agents: str | None,
    model: str | None,
    tasks: str | None,
    conditions: str | None,
    trials: int | None,
    backend: str | None,
    sweep_id: str | None,
    resume: bool,
    address: str | None,
    submit_to: str | None,
    no_wait: bool,
    mlflow_uri: str | None,
    max_concurrency: int | None,
    concurrency: str | None,
    max_retries: int | None,
    image: str | None,
    gateway_url: str | None,
    executor: str,
    num_cpus: int | None,
    attempt_fn: str | None,
    attempt_options: tuple[str, ...],
    progress: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Run agents x tasks x conditions x trials, each attempt in its own sandbox, results to Parquet and MLflow.

    Attempts already recorded are skipped; infrastructure failures are retried; Ctrl-C stops dispatching and
    waits for running attempts (twice: abandons them). Exit 0 when every attempt has a record, 130 when
    interrupted, 1 on an error. Every option also reads CMB_SWEEP_<OPTION>.
    """
    from pydantic import ValidationError

    from cmb.agents import agents_need_gateway
    from cmb.catalog import CatalogError
    from cmb.gateway import sweep_gateway
    from cmb.models import AttemptOptions, GatewayEndpoint
    from cmb.runner import LaunchError, agent_keys, effective_options
    from cmb.scheduler import (
        SweepDir,
        SweepStateError,
        checked_plan,
        condition_list,
        load_spec,
        name_list,
        resolve_attempt_fn,
        run_sweep,
        run_with_runner,
    )

    settings: CmbSettings = ctx.obj["settings"]
    home = settings.store.home
    if model is not None and agents is None:
        raise click.UsageError("--model applies to the agents named with --agents")
    if model is not None and agents is not None:
        agents = ",".join(agent_keys(name_list(agents) or [], model))  # the model rides in the agent's key form
    try:
        if spec_file is None and resume and sweep_id and not any([agents, tasks, conditions, trials]):
            spec = SweepDir(home, sweep_id).stored_spec()  # resume with the spec the sweep was started with
        else:
            name = sweep_id
            if name is None and spec_file is None:
                name = f"sweep-{datetime.now(UTC):%Y%m%d-%H%M%S}"
            spec = load_spec(
                spec_file,
                name=name,
                agents=name_list(agents),
                tasks=name_list(tasks),
                conditions=condition_list(conditions),
                trials=trials,
                backend=backend,
                max_concurrency=max_concurrency,
                concurrency=_concurrency(concurrency),
                max_retries=max_retries,
            )
    except LaunchError as exc:
        raise click.UsageError(str(exc)) from None
    except (CatalogError, ValidationError, ValueError, SweepStateError) as exc:
        raise click.ClickException(str(exc)) from None

    given = AttemptOptions(
        image=image, gateway=GatewayEndpoint(url=gateway_url), extra=_pairs(attempt_options, "--attempt-option")
    )
    if submit_to:
        from cmb.scheduler._submit import submit_sweep

        extra = _runtime_args(
            resume=resume,
            mlflow_uri=mlflow_uri or settings.store.mlflow_uri,
            image=image,
            gateway_url=gateway_url or settings.gateway.url,
            attempt_fn=attempt_fn,
        )
        for pair in attempt_options:
            extra += ["--attempt-option", pair]
        job_id, status = submit_sweep(spec, submit_to, extra_args=[*extra, "--no-progress"], wait=not no_wait)
        if as_json:
            click.echo(json.dumps({"job_id": job_id, "status": status, "sweep": spec.name}))
        sys.exit(0 if status in (None, "SUCCEEDED") else 1)

    options = effective_options(given, settings)
    try:
        runner = resolve_attempt_fn(attempt_fn) is run_with_runner
        attempts = checked_plan(spec, settings, options, runner=runner)
    except LaunchError as exc:  # an unknown name: refused before anything starts
        raise click.UsageError(str(exc)) from None
    except (KeyError, ValueError, TypeError, ImportError) as exc:
        raise click.ClickException(str(exc.args[0]) if exc.args else str(exc)) from None
    if dry_run:
        for a in attempts:
            click.echo(f"{a.key}  profile={a.profile.name} cpus={a.profile.cpus:g} limit={a.profile.time_limit_s}s")
        click.echo(f"{len(attempts)} attempts · spec hash {spec.spec_hash()}", err=True)
        return

    needed = agents_need_gateway(spec.agents)
    try:
        # LLM agents get a gateway: the one configured, or one started in-process for the sweep.
        with sweep_gateway(home, options.gateway, needed, settings.gateway.config) as endpoint:
            summary = run_sweep(
                spec,
                settings=settings,
                resume=resume,
                attempt_fn=attempt_fn,
                executor="threads" if executor == "threads" else "ray",
                address=address,
                num_cpus=num_cpus,
                mlflow_uri=mlflow_uri,
                options=options.model_copy(update={"gateway": endpoint}),
                progress=progress,
            )
    except (SweepStateError, KeyError, ValueError) as exc:
        raise click.ClickException(str(exc.args[0]) if exc.args else str(exc)) from None
    rate = "-" if summary.pass_rate is None else f"{summary.pass_rate:.1%}"
    click.echo(
        f"sweep {summary.sweep}: {summary.done} run now, {summary.skipped} earlier, of {summary.total}; "
        f"pass {rate}; infrastructure failures {summary.infrastructure} (retries {summary.retries}); "
        f"cost ${summary.cost:.2f}" + (" · INTERRUPTED (finish with --resume)" if summary.interrupted else ""),
        err=True,
    )
    if as_json:
        payload = {k: v for k, v in summary.__dict__.items() if k != "mlflow"}
        payload["mlflow"] = None if summary.mlflow is None else summary.mlflow.__dict__
        click.echo(json.dumps(payload, default=str))
    if summary.interrupted:
        sys.exit(130)
    sys.exit(0 if summary.complete else 1)


@cli.command("mlflow-sync")
@click.argument("sweep_id")
@click.option(
    "--mlflow-uri", default=None, help="MLflow tracking URI; default: CMB_MLFLOW_URI, else sqlite CMB_HOME/mlflow.db."
)
@click.pass_context
def mlflow_sync_cmd(ctx: click.Context, sweep_id: str, mlflow_uri: str | None) -> None:
    """Replay a sweep's Parquet results into MLflow; idempotent (what is already mirrored is skipped)."""
    from cmb.models import SweepSpec
    from cmb.scheduler import SweepDir, SweepStateError, mlflow_config
    from cmb.store import MlflowConfig, MlflowMirror, ParquetStore, default_tracking_uri

    settings: CmbSettings = ctx.obj["settings"]
    home = settings.store.home
    mlflow_uri = mlflow_uri or settings.store.mlflow_uri
    store = ParquetStore(home / "results")
    if sweep_id not in store.sweeps():
        raise click.ClickException(f"no results for sweep {sweep_id!r} under {home / 'results'}")
    try:
        spec: SweepSpec | None = SweepDir(home, sweep_id).stored_spec()
    except SweepStateError:
        spec = None
    config = mlflow_config(spec, home, mlflow_uri) if spec is not None else None
    if config is None:
        config = MlflowConfig(mlflow_uri or default_tracking_uri(home), sweep_id, home=home)
    report = MlflowMirror(config).sync(store, sweep_id, finished=True)
    click.echo(f"{sweep_id}: {report.logged} logged, {report.skipped} already mirrored, {report.failed} failed")
    for error in report.errors[:20]:
        click.echo(f"  {error}", err=True)
    sys.exit(1 if report.failed else 0)


@cli.command("compact")
@click.argument("sweep_id")
@click.pass_context
def compact_cmd(ctx: click.Context, sweep_id: str) -> None:
    """Fold a sweep's per-attempt Parquet files into one per table, dropping superseded rows."""
    from cmb.store import ParquetStore

    settings: CmbSettings = ctx.obj["settings"]
    store = ParquetStore(settings.store.home / "results")
    files, rows = store.compact(sweep_id)
    click.echo(f"{sweep_id}: {files} files -> 1, {rows} attempts")
