"""The `cmb` command line."""

from cmb.cli._main import cli, main

__all__ = ["cli", "main"]
