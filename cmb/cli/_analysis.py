"""`cmb results`, `cmb report` and `cmb compare`: the analysis of stored sweeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from cmb.analysis import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    TABLES,
    Analysis,
    AnalysisError,
    AnalysisOptions,
    Basis,
    CostModel,
    Epoch,
    Metric,
    PairedTestKind,
    compare,
    write_report,
)
from cmb.cli._main import cli
from cmb.store import experiment_links

_DEFAULT_COST = CostModel()


def _home(ctx: click.Context) -> Path:
    home: Path = ctx.obj["settings"].store.home
    return home


def analysis_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options every analysis command shares (each also read from its CMB_* variable)."""
    options = [
        click.option("--raw", is_flag=True, help="Count raw outcomes instead of audit-gated ones."),
        click.option("--all-epochs", is_flag=True, help="Keep attempts of older task, grader and harness versions."),
        click.option("--agents", default="", help="Only these agents (comma-separated)."),
        click.option("--conditions", default="", help="Only these conditions (comma-separated, e.g. SF,SR)."),
        click.option("--n-boot", type=click.IntRange(min=100), default=DEFAULT_N_BOOT, help="Bootstrap resamples."),
        click.option("--seed", type=int, default=DEFAULT_SEED, help="Seed of the bootstrap and Monte Carlo tests."),
        click.option(
            "--level",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=0.95,
            help="Confidence level of intervals.",
        ),  # fmt: skip
        click.option(
            "--cpu-hour-usd",
            type=click.FloatRange(min=0),
            default=_DEFAULT_COST.cpu_hour_usd,
            envvar="CMB_CPU_HOUR_USD",
            show_envvar=True,
            help="Compute price per CPU-hour.",
        ),  # fmt: skip
        click.option(
            "--node-hour-usd",
            type=click.FloatRange(min=0),
            default=_DEFAULT_COST.node_hour_usd,
            envvar="CMB_NODE_HOUR_USD",
            show_envvar=True,
            help="Compute price per node-hour (node-exclusive attempts).",
        ),  # fmt: skip
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _split(text: str) -> tuple[str, ...] | None:
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    return items or None


def _options(kw: dict[str, Any]) -> AnalysisOptions:
    return AnalysisOptions(
        basis=Basis.RAW if kw.pop("raw") else Basis.GATED,
        epoch=Epoch.ALL if kw.pop("all_epochs") else Epoch.LATEST,
        agents=_split(kw.pop("agents")),
        conditions=_split(kw.pop("conditions")),
        n_boot=kw.pop("n_boot"),
        seed=kw.pop("seed"),
        level=kw.pop("level"),
        cost=CostModel(cpu_hour_usd=kw.pop("cpu_hour_usd"), node_hour_usd=kw.pop("node_hour_usd")),
    )


def _load(ctx: click.Context, sweep: str, options: AnalysisOptions) -> Analysis:
    try:
        return Analysis.from_store(_home(ctx), [sweep], options)
    except AnalysisError as exc:
        raise click.ClickException(str(exc)) from None


@cli.command("results")
@click.argument("sweep")
@click.option("--table", "table_name", type=click.Choice(list(TABLES)), default="pass", help="Which table.")
@click.option("--json", "as_json", is_flag=True, help="Print the table's rows, notes and meta as JSON.")
@click.option("--markdown", is_flag=True, help="Print the table's stable columns as Markdown (for a README).")
@analysis_options
@click.pass_context
def results_cmd(ctx: click.Context, /, sweep: str, table_name: str, as_json: bool, markdown: bool, **kw: Any) -> None:
    """Print one table of SWEEP: pass, repeat, conditions, failures, shared-errors, cost or grid."""
    analysis = _load(ctx, sweep, _options(kw))
    table = analysis.table(table_name)
    click.echo(table.to_json() if as_json else table.to_markdown() if markdown else table.to_text())


@cli.command("report")
@click.argument("sweep")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"),
              help="Where to write the HTML report.")  # fmt: skip
@analysis_options
@click.pass_context
def report_cmd(ctx: click.Context, /, sweep: str, out: Path, **kw: Any) -> None:
    """Write one self-contained HTML report of SWEEP (tables and figures, readable offline)."""
    analysis = _load(ctx, sweep, _options(kw))
    path = write_report(analysis, out)
    click.echo(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB; {analysis.epoch.summary()})")


@cli.command("compare")
@click.argument("sweep_a")
@click.argument("sweep_b")
@click.option("--agent-a", default=None, help="Agent of side A (with --agent-b: compare two agents).")
@click.option("--agent-b", default=None, help="Agent of side B (default: the same as --agent-a).")
@click.option("--metric", type=click.Choice([m.value for m in Metric]), default=Metric.PASS.value,
              help="Per-task pass rate or mean check score.")  # fmt: skip
@click.option("--test", "test_kind", type=click.Choice([t.value for t in PairedTestKind]),
              default=PairedTestKind.PERMUTATION.value, help="The test corrected for multiplicity.")  # fmt: skip
@click.option("--by-kind", is_flag=True, help="One cell per task kind as well.")
@click.option("--any-version", is_flag=True, help="Pair tasks even when their task or grader versions differ.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              help="Family-wise significance level (Bonferroni).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@analysis_options
@click.pass_context
def compare_cmd(
    ctx: click.Context,
    /,
    sweep_a: str,
    sweep_b: str,
    agent_a: str | None,
    agent_b: str | None,
    metric: str,
    test_kind: str,
    by_kind: bool,
    any_version: bool,
    alpha: float,
    as_json: bool,
    **kw: Any,
) -> None:
    """Paired comparison of SWEEP_B against SWEEP_A on common tasks (the same sweep twice: two agents)."""
    options = _options(kw)
    a = _load(ctx, sweep_a, options)
    b = a if sweep_b == sweep_a else _load(ctx, sweep_b, options)
    if agent_a and not agent_b:
        agent_b = agent_a
    if sweep_a == sweep_b and (agent_a is None or agent_a == agent_b):
        raise click.UsageError("comparing a sweep with itself needs two agents: --agent-a X --agent-b Y")
    table = compare(a, b, agent_a=agent_a, agent_b=agent_b, metric=Metric(metric), test=PairedTestKind(test_kind),
                    by_kind=by_kind, any_version=any_version, alpha=alpha)  # fmt: skip
    sweeps = [sweep_a] if sweep_a == sweep_b else [sweep_a, sweep_b]
    links = experiment_links(_home(ctx), ctx.obj["settings"].store.mlflow_uri, sweeps)
    if as_json:
        table.meta["mlflow"] = links.to_dict()
        click.echo(table.to_json())
    else:
        click.echo(table.to_text())
        click.echo("\n".join(links.lines(["A", "B"] if len(sweeps) == 2 else ["A, B"])))
