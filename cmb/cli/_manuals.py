"""`cmb manuals ...`: build and inspect the offline manuals library every sandbox mounts read-only."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from cmb.cli._main import cli
from cmb.settings import CmbSettings


@cli.group()
def manuals() -> None:
    """The offline manuals agents may read (QE input docs, LAMMPS manual, phonopy examples and help)."""


@manuals.command("build")
@click.option("--out", type=click.Path(path_type=Path), help="Library folder [default: CMB_MANUALS]")
@click.option("--force", is_flag=True, help="Rebuild even when the library matches the pinned sources")
@click.pass_context
def build(ctx: click.Context, out: Path | None, force: bool) -> None:
    """Download the pinned sources (checked by sha256), select their documentation and index it."""
    from cmb.manuals import LibraryError, build_library

    settings: CmbSettings = ctx.obj["settings"]
    target = out or settings.sandbox.manuals
    start = time.monotonic()
    try:
        build_library(target, force=force, progress=lambda m: click.echo(m, err=True))
    except LibraryError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{target} ({time.monotonic() - start:.0f} s)")


@manuals.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON")
@click.pass_context
def show(ctx: click.Context, as_json: bool) -> None:
    """Where the library is, what it holds, and whether it matches the pinned sources."""
    from cmb.manuals import MOUNT_POINT, is_current, read_manifest

    settings: CmbSettings = ctx.obj["settings"]
    library = settings.sandbox.manuals
    manifest = read_manifest(library)
    if manifest is None:
        raise click.ClickException(f"no manuals library at {library}; run `cmb manuals build`")
    if as_json:
        click.echo(json.dumps(manifest, indent=2))
        return
    state = "current" if is_current(library) else "outdated: run `cmb manuals build`"
    click.echo(f"{library} ({state}; built {manifest['built_at']}; mounted at {MOUNT_POINT})")
    for s in manifest["sources"]:
        click.echo(f"  {s['name']:<18} {s['files']:>5} files  {s['origin']}")
    for g in manifest["generated"]:
        click.echo(f"  {g['into']:<45} {'ok' if g['ok'] else 'missing: ' + g['reason']}")
