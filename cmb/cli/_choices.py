"""Option choices read from the registries when needed, so a plugin's names count and `cmb --help` stays fast."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import click

AUTO = "auto"


class RegistryChoice(click.Choice[str]):
    """A click.Choice whose names come from a registry on first use."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        self.case_sensitive = True

    @property
    def choices(self) -> Sequence[str]:  # type: ignore[override]  # read from the registry, never assigned
        """The names registered now."""
        return tuple(self._names())


def _backends() -> list[str]:
    from cmb.sandbox import backend_choices

    return backend_choices()


BACKEND = RegistryChoice(_backends)
