"""`cmb config show`: every effective setting, where its value came from, and what it does."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from cmb.cli._main import cli
from cmb.cli._table import render_table
from cmb.settings import CmbSettings


@cli.group("config")
def config_group() -> None:
    """The harness settings (CMB_* environment variables)."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.pass_context
def config_show(ctx: click.Context, as_json: bool) -> None:
    """Print every setting: its value, its source (default, argument, or the variable that set it), its variable."""
    settings: CmbSettings = ctx.obj["settings"]
    rows = settings.effective()
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    table = [
        (r.name, json.dumps(r.value) if not isinstance(r.value, str) else r.value, r.source, r.env, r.description)
        for r in rows
    ]
    click.echo(render_table(("setting", "value", "source", "variable", "description"), table))
