"""Option choices read from the registries when they are needed, so that a plugin's names count too."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import click

from cmb.sandbox import backend_choices


class RegistryChoice(click.Choice[str]):
    """A click.Choice whose names come from a registry each time they are asked for."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        self.case_sensitive = True

    @property
    def choices(self) -> Sequence[str]:  # type: ignore[override]  # read from the registry, never assigned
        """The names registered now."""
        return tuple(self._names())


BACKEND = RegistryChoice(backend_choices)
