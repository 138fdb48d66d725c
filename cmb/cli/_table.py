"""Plain-text tables for the listing commands."""

from __future__ import annotations

from collections.abc import Sequence


def render_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the last column is not padded."""
    table = [tuple(header), *(tuple(r) for r in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    lines = [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]).rstrip() for row in table
    ]
    return "\n".join(lines)
