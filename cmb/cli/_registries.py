"""`cmb agents list`, `cmb backends list|cleanup`, `cmb checks list`: what is registered, by cmb or by a plugin."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click

from cmb.cli._main import cli
from cmb.cli._table import render_table
from cmb.settings import CmbSettings

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


@cli.group("agents")
def agents_group() -> None:
    """The registered agents."""


@agents_group.command("list")
@_JSON
@click.pass_context
def agents_list(ctx: click.Context, as_json: bool) -> None:
    """Every agent `cmb run --agent` and `cmb sweep --agents` accept, with where it comes from."""
    from cmb.agents import agent_infos
    from cmb.runner import LaunchError, register_user_agents

    try:
        register_user_agents(ctx.obj["settings"])
    except LaunchError as exc:
        raise click.ClickException(str(exc)) from None
    infos = agent_infos()
    if as_json:
        click.echo(json.dumps([asdict(i) for i in infos], indent=2))
        return
    rows = [(i.name, "yes" if i.needs_gateway else "-", i.origin, i.description) for i in infos]
    click.echo(render_table(("agent", "model", "from", "description"), rows))


@cli.group("backends")
def backends_group() -> None:
    """The registered sandbox backends."""


@backends_group.command("list")
@_JSON
@click.pass_context
def backends_list(ctx: click.Context, as_json: bool) -> None:
    """Every sandbox backend `--backend` accepts, and whether it can run here."""
    from cmb.sandbox import backend_infos

    settings: CmbSettings = ctx.obj["settings"]
    infos = backend_infos(settings)
    if as_json:
        click.echo(json.dumps([asdict(i) for i in infos], indent=2))
        return
    rows = [
        (i.name, "yes" if i.unavailable is None else f"no: {i.unavailable}", i.origin, i.description) for i in infos
    ]
    click.echo(render_table(("backend", "runs here", "from", "description"), rows))


@backends_group.command("cleanup")
@_JSON
@click.pass_context
def backends_cleanup(ctx: click.Context, as_json: bool) -> None:
    """Remove what sandboxes of dead harness processes left behind (a killed launcher's, its warm pool's too).

    Nothing of a harness process that still runs is touched; every sweep does this at its end.
    """
    from cmb.sandbox import cleanup_orphans

    settings: CmbSettings = ctx.obj["settings"]
    removed = cleanup_orphans(settings)
    if as_json:
        click.echo(json.dumps(removed, indent=2))
        return
    rows = [
        (name, str(len(items)), ", ".join(items[:5]) + (" ..." if len(items) > 5 else ""))
        for name, items in removed.items()
    ]
    click.echo(render_table(("backend", "removed", "objects"), rows))


@cli.group("checks")
def checks_group() -> None:
    """The registered check types graders may name."""


@checks_group.command("list")
@_JSON
def checks_list(as_json: bool) -> None:
    """Every check type, by family, with its parameters and where it comes from."""
    from cmb.grading import REGISTRY

    types = [REGISTRY.types[name] for name in sorted(REGISTRY.types)]
    rows: list[dict[str, Any]] = [
        {
            "name": t.name,
            "family": t.family,
            "origin": REGISTRY.types.origin(t.name),
            "params": sorted(t.params.model_fields),
            "needs_reference": t.needs_reference,
            "description": t.doc,
        }
        for t in types
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = [(r["name"], r["origin"], ", ".join(r["params"]) or "-", r["description"]) for r in rows]
    click.echo(render_table(("check type", "from", "params", "description"), table))
