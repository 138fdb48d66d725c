"""A result table: data rows for JSON and display cells for the terminal and the HTML report."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from cmb.models import CmbModel


class Table(CmbModel):
    """One table of the analysis. `rows` carry the numbers (fractions, USD, counts); `cells` their display."""

    name: str = Field(description="Registry name, e.g. 'pass'")
    title: str
    header: list[str]
    cells: list[list[str]] = Field(description="Display text, one list per row, aligned with header")
    rows: list[dict[str, Any]] = Field(description="Machine-readable rows")
    notes: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict, description="Seed, resamples, epoch report, options")
    brief: list[str] = Field(
        default_factory=list,
        description="Columns of the Markdown form (default all): those that do not change from run to run",
    )

    def to_json(self) -> str:
        """The JSON printed by `--json`: the rows with their title, notes and meta, no display text."""
        payload = {"table": self.name, "title": self.title, "rows": self.rows, "notes": self.notes, "meta": self.meta}
        return json.dumps(payload, indent=2, default=str)

    def to_markdown(self) -> str:
        """A Markdown table of the brief columns (all when none are named), for READMEs and issue notes."""
        keep = [i for i, h in enumerate(self.header) if not self.brief or h in self.brief]
        lines = ["| " + " | ".join(self.header[i] for i in keep) + " |", "|" + " --- |" * len(keep)]
        lines += ["| " + " | ".join(row[i] for i in keep) + " |" for row in self.cells]
        return "\n".join(lines)

    def to_text(self) -> str:
        """A plain aligned table for the terminal."""
        widths = [len(h) for h in self.header]
        for row in self.cells:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], len(cell))
        lines = [self.title, ""]
        line = "  ".join(h.ljust(w) for h, w in zip(self.header, widths, strict=True)).rstrip()
        lines += [line, "  ".join("-" * w for w in widths)]
        for row in self.cells:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if not self.cells:
            lines.append("(no rows)")
        if self.notes:
            lines.append("")
            lines.extend(self.notes)
        return "\n".join(lines)


def pct(x: float | None, digits: int = 1) -> str:
    """A fraction as a percentage, '–' when missing."""
    return "–" if x is None else f"{100 * x:.{digits}f}"


def pp(x: float | None) -> str:
    """A difference of fractions in signed percentage points."""
    return "–" if x is None else f"{100 * x:+.1f}"


def rate_cell(passes: int, attempts: int) -> str:
    """'66.0 (62/94)', the rate with the count behind it."""
    if attempts == 0:
        return "–"
    return f"{100 * passes / attempts:.1f} ({passes}/{attempts})"


def ci_cell(low: float | None, high: float | None, scale: float = 100.0) -> str:
    """'[57.4, 75.5]' in percent (or points for differences)."""
    if low is None or high is None:
        return "–"
    return f"[{scale * low:.1f}, {scale * high:.1f}]"


def usd(x: float | None, unpriced: int = 0) -> str:
    """A USD amount; unpriced attempts are said, never counted as $0."""
    if x is None:
        return "unpriced" if unpriced else "–"
    text = f"{x:,.2f}"
    return f"{text} (+{unpriced} unpriced)" if unpriced else text


def ratio(num: float, den: float) -> float | None:
    """num/den, None for an empty denominator."""
    return None if den == 0 else num / den
