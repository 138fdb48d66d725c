"""Located catalog errors: every problem names its file and, where known, its line and field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One problem found in the catalog."""

    path: Path
    message: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        field = f" [{self.field}]" if self.field else ""
        return f"{where}{field}: {self.message}"


class CatalogError(Exception):
    """One or more malformed catalog files."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
