"""The `cmb` command line. Commands are thin: they parse options, call the library, and print."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from cmb import __version__
from cmb.catalog import (
    Catalog,
    CatalogError,
    TaskEntry,
    render_study,
    reproduce_entry,
    study_mermaid,
    suite_markdown,
    suite_rows,
    validate,
    verify_entry,
)
from cmb.cli._choices import BACKEND
from cmb.grading import GraderConfigError, grade
from cmb.models import Condition, GradeReport, RunRecord
from cmb.sandbox import AUTO
from cmb.settings import CmbSettings

CONTEXT = {"auto_envvar_prefix": "CMB", "show_default": True, "help_option_names": ["-h", "--help"]}


def _catalog(ctx: click.Context) -> Catalog:
    root: Path = ctx.obj["root"]
    return Catalog.load(root)


def _entry(catalog: Catalog, task_id: str) -> TaskEntry:
    try:
        return catalog.get(task_id)
    except KeyError as exc:
        raise click.ClickException(str(exc.args[0])) from None


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, prog_name="cmb")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Suite root holding tasks/, graders/ and references/; default: CMB_ROOT, else the current folder if "
    "it holds tasks/, else the checkout.",
)
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """Cmb: evaluate AI agents on computational materials science."""
    from pydantic import ValidationError

    given = ctx.get_parameter_source("root") is click.core.ParameterSource.COMMANDLINE
    try:
        settings = CmbSettings(root=root) if given else CmbSettings()
    except ValidationError as exc:
        raise click.UsageError(f"settings: {exc}") from None
    ctx.obj = {"root": settings.root, "settings": settings}


@cli.group()
def tasks() -> None:
    """List, inspect and validate the task suite."""


@tasks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--markdown", is_flag=True, help="Print a Markdown table by study (for the README).")
@click.pass_context
def tasks_list(ctx: click.Context, as_json: bool, markdown: bool) -> None:
    """List tasks and workflows: id, study, kind, codes, number of checks, whether a reduced prompt exists."""
    catalog = _catalog(ctx)
    rows = suite_rows(catalog)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if markdown:
        click.echo(suite_markdown(catalog))
        return
    header = ("id", "study", "kind", "codes", "checks", "reduced")
    table = [header] + [
        (
            r["id"],
            r["study"],
            r["kind"],
            ",".join(r["codes"]),
            str(r["n_checks"] if r["n_checks"] is not None else "?"),
            "yes" if r["has_reduced"] else "-",
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    click.echo(f"\n{len(rows)} entries")
    for problem in catalog.problems:
        click.echo(f"warning: {problem}", err=True)


@tasks.command("show")
@click.argument("task_id")
@click.option("--mermaid", is_flag=True, help="For a study: print its step graph as a Mermaid flowchart.")
@click.pass_context
def tasks_show(ctx: click.Context, task_id: str, mermaid: bool) -> None:
    """Show a task's spec, prompts and checks (never its reference values), or a study's citation and step graph."""
    catalog = _catalog(ctx)
    if task_id not in catalog.entries and task_id in catalog.studies:
        study = catalog.studies[task_id]
        click.echo(study_mermaid(study) if mermaid else render_study(study, catalog.study_entries(task_id)))
        return
    entry = _entry(catalog, task_id)
    spec = entry.spec
    click.echo(f"{spec.id}: {spec.title}")
    click.echo(f"  study {spec.study} · kind {spec.kind.value} · codes {', '.join(spec.codes)}")
    click.echo(f"  resources {spec.resources} · answer files {', '.join(spec.answer_files)}")
    reduced = "yes" if entry.has_reduced else "no"
    click.echo(f"  workspace {', '.join(spec.workspace) or '-'} · reduced prompt {reduced}")
    try:
        grader = entry.grader()
    except CatalogError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"  {len(grader.checks)} checks:")
    for c in grader.checks:
        where = c.target.file + (f":{c.target.field}" if c.target.field else "")
        where += f":{c.target.setting}" if c.target.setting else ""
        click.echo(f"    {c.id:<28} {c.type:<18} {c.category.value:<10} {where}")
    cond = entry.conditions()[0]
    click.echo(f"\n--- prompt ({cond.value}) ---\n{entry.prompt(cond)}")


@tasks.command("validate")
@click.argument("task_ids", nargs=-1)
@click.pass_context
def tasks_validate(ctx: click.Context, task_ids: tuple[str, ...]) -> None:
    """Check schema, files, grader/reference consistency and scan for leaks. Exit 1 on any problem."""
    catalog = _catalog(ctx)
    try:
        problems = validate(catalog, list(task_ids) or None)
    except KeyError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    n = len(task_ids) or len(catalog.entries)
    for problem in problems:
        click.echo(str(problem), err=True)
    if problems:
        click.echo(f"{len(problems)} problem(s) in {n} entries", err=True)
        sys.exit(1)
    click.echo(f"{n} entries valid")


@tasks.command("verify")
@click.argument("task_ids", nargs=-1)
@click.option("--conditions", default="", help="Comma-separated conditions (default: both of each entry).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per verification.")
@click.pass_context
def tasks_verify(ctx: click.Context, task_ids: tuple[str, ...], conditions: str, as_json: bool) -> None:
    """Run each task's oracle solution and grade it; an empty submission must fail. Exit 1 if any does not hold."""
    catalog = _catalog(ctx)
    try:
        entries = catalog.select(list(task_ids) or ["all"])
    except KeyError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    wanted = {Condition(c.strip()) for c in conditions.split(",") if c.strip()}
    jobs = [(e, c) for e in entries for c in e.conditions() if not wanted or c in wanted]
    failures = 0
    for i, (entry, cond) in enumerate(jobs, start=1):
        click.echo(f"[{i}/{len(jobs)}] {entry.id} {cond.value} ...", err=True, nl=False)
        try:
            result = verify_entry(entry, cond)
        except (CatalogError, GraderConfigError) as exc:
            click.echo(f" broken grader: {exc}", err=True)
            failures += 1
            continue
        failures += not result.ok
        oracle = "error" if result.oracle is None else ("pass" if result.oracle.passed else "FAIL")
        null = "fail" if not result.null.passed else "PASS (bad)"
        if result.recall is None:
            recall = "missing"
        elif not result.recall.passed:
            recall = "fail"
        else:
            recall = "voided by the code audit" if result.recall_audited else "PASS (bad)"
        click.echo(f" oracle {oracle}, empty {null}, recall {recall} ({result.seconds:.1f} s)", err=True)
        if result.error:
            click.echo(f"    {result.error}", err=True)
        elif result.oracle is not None and not result.oracle.passed:
            for r in result.oracle.checks:
                if not r.passed:
                    click.echo(f"    FAIL {r.id}: {r.message}", err=True)
        if as_json:
            payload = {
                "task": entry.id,
                "condition": cond.value,
                "ok": result.ok,
                "oracle_passed": None if result.oracle is None else result.oracle.passed,
                "null_passed": result.null.passed,
                "recall_passed": None if result.recall is None else result.recall.passed,
                "recall_audited": result.recall_audited,
                "seconds": round(result.seconds, 2),
                "error": result.error,
            }
            click.echo(json.dumps(payload))
    click.echo(f"{len(jobs) - failures}/{len(jobs)} verified", err=True)
    sys.exit(1 if failures else 0)


@tasks.command("reproduce")
@click.argument("task_id")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the runs in this folder instead of a temporary one.",
)
@click.pass_context
def tasks_reproduce(ctx: click.Context, task_id: str, workdir: Path | None) -> None:
    """Re-run a task's expensive step with the real code and compare with the committed reference values."""
    entry = _entry(_catalog(ctx), task_id)
    click.echo(f"re-running references/{task_id}/reproduce/reproduce.sh ...", err=True)
    result = reproduce_entry(entry, workdir)
    if result.error:
        click.echo(f"error: {result.error}", err=True)
        sys.exit(1)
    for v in result.values:
        click.echo(f"  {'ok  ' if v.passed else 'FAIL'} {v.key:<24} {v.message}")
    for f in result.files:
        layout = "same layout" if f.identical_layout else "different layout"
        click.echo(f"  file {f.name:<24} {f.numbers} numbers, {layout}, max relative difference {f.max_rel_diff:.2e}")
    verdict = "reproduced" if result.ok else "NOT reproduced"
    click.echo(f"{task_id}: {verdict} in {result.seconds:.1f} s")
    sys.exit(0 if result.ok else 1)


EXPORT_FORMATS = ("harbor",)


@tasks.command("export")
@click.argument("task_ids", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="harbor", help="Folder layout to write.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to write into.")
@click.option("--conditions", default="", help="Comma-separated conditions (default: each of every entry's).")
@click.option("--image", default=None, help="Agent image the environments build on; default: CMB_SANDBOX_IMAGE.")
@click.pass_context
def tasks_export(
    ctx: click.Context, task_ids: tuple[str, ...], fmt: str, out: Path, conditions: str, image: str | None
) -> None:
    """Write TASK_IDS (ids, study:NAME; default all) as Harbor task folders, one per task and condition."""
    from cmb.integrations.harbor import export_tasks

    settings: CmbSettings = ctx.obj["settings"]
    try:
        wanted = [Condition(c.strip().upper()) for c in conditions.split(",") if c.strip()] or None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--conditions") from None
    try:
        folders = export_tasks(_catalog(ctx), list(task_ids) or ["all"], out, wanted, image or settings.sandbox.image)
    except (KeyError, FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc.args[0] if isinstance(exc, KeyError) else exc)) from None
    for folder in folders:
        click.echo(folder)
    click.echo(f"{len(folders)} {fmt} task folder(s) in {out}", err=True)


def _render_report(report: GradeReport) -> str:
    lines = [
        f"{report.task_id}: {'PASSED' if report.passed else 'FAILED'}  "
        f"score {report.score:.3f}  partial {report.partial_score:.3f}"
        + (f"  first failing category: {report.failure_category.value}" if report.failure_category else "")
    ]
    for r in report.checks:
        mark = "ok  " if r.passed else "FAIL"
        lines.append(f"  {mark} {r.id:<28} [{r.category.value}] {r.message}")
    return "\n".join(lines)


@cli.command("grade")
@click.argument("task_id")
@click.argument("submission_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the GradeReport as JSON.")
@click.pass_context
def grade_cmd(ctx: click.Context, task_id: str, submission_dir: Path, as_json: bool) -> None:
    """Grade SUBMISSION_DIR against TASK_ID. Exit 0 when it passes, 1 when it fails, 2 on a harness error."""
    entry = _entry(_catalog(ctx), task_id)
    try:
        report = grade(entry.grader(), entry.reference(), submission_dir, entry.reference_dir)
    except (CatalogError, GraderConfigError) as exc:
        click.echo(f"error: grader of {task_id} is broken: {exc}", err=True)
        sys.exit(2)
    click.echo(report.model_dump_json(indent=2) if as_json else _render_report(report))
    sys.exit(0 if report.passed else 1)


def _agent_options(pairs: tuple[str, ...]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--agent-option")
        options[name.strip()] = value
    return options


@cli.command("run")
@click.argument("task_id")
@click.option("--agent", "agent_name", required=True, help="A registered agent (`cmb agents list`), or NAME@MODEL.")
@click.option("--condition", default=None, help="SF, SR, WF or WR (default: SF for a task, WF for a workflow).")
@click.option(
    "--backend",
    type=BACKEND,
    default=AUTO,
    help="A registered sandbox backend (`cmb backends list`); auto: docker when a daemon answers, else local.",
)
@click.option("--trial", type=click.IntRange(min=0), default=0, help="Trial index (part of the attempt key).")
@click.option("--sweep", "sweep_id", default="adhoc", help="Sweep id the attempt is filed under.")
@click.option("--time-limit", type=click.IntRange(min=1), default=None, help="Override the time limit in seconds.")
@click.option("--cpus", type=float, default=None, help="Override the profile's CPU count.")
@click.option("--memory-gib", type=float, default=None, help="Override the profile's memory limit.")
@click.option(
    "--model", default=None, help="Model <upstream>/<name> for an agent that uses one (its key: AGENT@MODEL)."
)
@click.option("--gateway-url", default=None, help="Model gateway base URL (without /v1); default: CMB_GATEWAY_URL.")
@click.option("--gateway-key", default=None, help="Per-run key for the gateway.")
@click.option("--image", default=None, help="Agent image (docker, kubernetes); default: CMB_SANDBOX_IMAGE.")
@click.option("--agent-option", "agent_opts", multiple=True, help="KEY=VALUE passed to the agent (repeatable).")
@click.option(
    "--agents-file", default=None, help="External-agent YAML files, colon-separated; default: CMB_AGENTS_FILE."
)
@click.option("--json", "as_json", is_flag=True, help="Print the RunRecord as JSON.")
@click.pass_context
def run_cmd(
    ctx: click.Context,
    task_id: str,
    agent_name: str,
    condition: str | None,
    backend: str,
    trial: int,
    sweep_id: str,
    time_limit: int | None,
    cpus: float | None,
    memory_gib: float | None,
    model: str | None,
    gateway_url: str | None,
    gateway_key: str | None,
    image: str | None,
    agent_opts: tuple[str, ...],
    agents_file: str | None,
    as_json: bool,
) -> None:
    """Run one attempt of AGENT on TASK_ID in a sandbox. Exit 0 passed, 1 failed, 2 infrastructure or a bad request."""
    from pydantic import ValidationError

    from cmb.models import AttemptOptions, FailureClass, GatewayEndpoint, RunKey
    from cmb.runner import LaunchError, agent_keys, find_task, parse_condition, prepare
    from cmb.settings import AgentsSettings

    settings: CmbSettings = ctx.obj["settings"]
    if agents_file is not None:
        settings = settings.model_copy(update={"agents": AgentsSettings.model_validate({"files": agents_file})})
    agent_options = _agent_options(agent_opts)
    try:
        options = AttemptOptions(
            backend=backend,
            image=image,
            agent_options=agent_options,
            gateway=GatewayEndpoint(url=gateway_url, key=gateway_key),
            time_limit_s=time_limit,
            cpus=cpus,
            memory_gib=memory_gib,
        )
        entry = find_task(_catalog(ctx), task_id)
        cond = parse_condition(condition) if condition else entry.conditions()[0]
        agent = agent_keys([agent_name], model)[0]
        key = RunKey(sweep=sweep_id, agent=agent, task=entry.id, condition=cond, trial=trial)
        attempt = prepare(key, entry, options, settings)
    except (LaunchError, ValidationError) as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"running {key} on {attempt.backend.backend} ...", err=True)
    record = attempt.run()
    if as_json:
        click.echo(record.model_dump_json(indent=2))
    else:
        click.echo(_render_record(record, settings.store.home))
    if record.failure_class is FailureClass.INFRASTRUCTURE:
        sys.exit(2)
    sys.exit(0 if record.passed else 1)


def _render_record(record: RunRecord, home: Path) -> str:
    failure = record.failure_class.value if record.failure_class else "?"
    verdict = "PASSED" if record.passed else f"FAILED ({failure})"
    t = record.timings
    flags = record.audit_flags
    shown = ", ".join(f"{k}={'ok' if v else 'NO'}" for k, v in flags.model_dump().items()) if flags else "not run"
    lines = [
        f"{record.key}: {verdict}  exit {record.exit_reason.value}  raw {record.raw_score:.3f}  "
        f"gated {record.gated_score:.3f}",
        f"  setup {t.setup:.1f} s · agent {t.agent:.1f} s · collect {t.collect:.1f} s · grade {t.grade:.1f} s",
        f"  audit {'passed' if record.audit_passed else 'FAILED'}: {shown}",
        *(f"    {message}" for message in record.audit_messages),
    ]
    if record.grade is not None:
        lines.append(_render_report(record.grade))
    lines.append(f"  artifacts: {home / 'artifacts' / record.key.sweep / record.key.slug}")
    return "\n".join(lines)


def main() -> None:
    """Entry point of the `cmb` script."""
    cli(prog_name="cmb")


# Command groups living in their own modules register themselves on `cli` when imported.
from cmb.cli import _analysis, _config, _gateway, _manuals, _registries, _sweep  # noqa: E402,F401
