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
@click.option("--agents", default=None, help="Comma-separated agent names, e.g. oracle,null (overrides the spec).")
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
    type=click.Choice(["auto", "local", "docker", "kubernetes"]),
    default=None,
    help="Sandbox backend; auto = docker when a daemon answers, else local (overrides the spec).",
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
    envvar="CMB_MLFLOW_URI",
    show_envvar=True,
    help="MLflow tracking URI (a server); default: sqlite CMB_HOME/mlflow.db; 'none' disables the mirror.",
)
@click.option("--max-concurrency", type=click.IntRange(min=1), default=None, help="Attempts running at once in all.")
@click.option(
    "--concurrency", default=None, metavar="PROFILE=N,...", help="Slots per resource profile, e.g. single=8,workflow=2."
)
@click.option("--max-retries", type=click.IntRange(min=0), default=None, help="Infrastructure retries per attempt.")
@click.option("--image", default=None, help="Agent image for the docker and kubernetes backends.")
@click.option("--gateway-url", default=None, envvar="CMB_GATEWAY_URL", show_envvar=True, help="Model gateway base URL.")
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

    from cmb.catalog import Catalog, CatalogError
    from cmb.scheduler import SweepDir, SweepStateError, condition_list, load_spec, name_list, plan, run_sweep

    settings: CmbSettings = ctx.obj["settings"]
    home = Path(settings.home)
    if model is not None and agents is not None:
        from cmb.agents import agents_need_gateway
        from cmb.gateway import key_model_name

        # An attempt key cannot hold '/', so the model rides in the agent name in its key form.

        names = [a.strip() for a in agents.split(",") if a.strip()]
        agents = ",".join(
            f"{a}@{key_model_name(model)}" if "@" not in a and agents_need_gateway([a]) else a for a in names
        )
    elif model is not None:
        raise click.UsageError("--model applies to the agents named with --agents")
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
    except (CatalogError, ValidationError, ValueError, SweepStateError) as exc:
        raise click.ClickException(str(exc)) from None

    options = {k: v for k, v in {"image": image, "gateway_url": gateway_url}.items() if v}
    options["manuals"] = str(settings.manuals)  # the driver's library; workers elsewhere fall back to theirs
    for pair in attempt_options:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--attempt-option")
        options[name.strip()] = value
    if submit_to:
        from cmb.scheduler._submit import submit_sweep

        extra = _runtime_args(
            resume=resume, mlflow_uri=mlflow_uri, image=image, gateway_url=gateway_url, attempt_fn=attempt_fn
        )
        for pair in attempt_options:
            extra += ["--attempt-option", pair]
        job_id, status = submit_sweep(spec, submit_to, extra_args=[*extra, "--no-progress"], wait=not no_wait)
        if as_json:
            click.echo(json.dumps({"job_id": job_id, "status": status, "sweep": spec.name}))
        sys.exit(0 if status in (None, "SUCCEEDED") else 1)

    if dry_run:
        try:
            attempts = plan(spec, Catalog.load(settings.root))
        except (KeyError, ValueError) as exc:
            raise click.ClickException(str(exc.args[0]) if exc.args else str(exc)) from None
        for a in attempts:
            click.echo(f"{a.key}  profile={a.profile.name} cpus={a.profile.cpus:g} limit={a.profile.time_limit_s}s")
        click.echo(f"{len(attempts)} attempts · spec hash {spec.spec_hash()}", err=True)
        return

    from cmb.agents import agents_need_gateway
    from cmb.gateway import sweep_gateway

    try:
        # LLM agents get a gateway: the one configured, or one started in-process for the sweep.
        with sweep_gateway(home, options, agents_need_gateway(spec.agents)) as options:
            summary = run_sweep(
                spec,
                home=home,
                root=settings.root,
                resume=resume,
                attempt_fn=attempt_fn,
                executor="threads" if executor == "threads" else "ray",
                address=address,
                num_cpus=num_cpus,
                mlflow_uri=mlflow_uri,
                options=options,
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
    "--mlflow-uri",
    default=None,
    envvar="CMB_MLFLOW_URI",
    show_envvar=True,
    help="MLflow tracking URI; default: sqlite CMB_HOME/mlflow.db.",
)
@click.pass_context
def mlflow_sync_cmd(ctx: click.Context, sweep_id: str, mlflow_uri: str | None) -> None:
    """Replay a sweep's Parquet results into MLflow; idempotent (what is already mirrored is skipped)."""
    from cmb.models import SweepSpec
    from cmb.scheduler import SweepDir, SweepStateError, mlflow_config
    from cmb.store import MlflowConfig, MlflowMirror, ParquetStore, default_tracking_uri

    home = Path(ctx.obj["settings"].home)
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

    store = ParquetStore(Path(ctx.obj["settings"].home) / "results")
    files, rows = store.compact(sweep_id)
    click.echo(f"{sweep_id}: {files} files -> 1, {rows} attempts")
