"""Usage from an agent program's own report: token counts are kept, its cost figure never is."""

from __future__ import annotations

from typing import Any

from cmb.models import Usage

_INT_FIELDS = ("requests", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")


def usage_from_report(report: dict[str, Any] | None, model: str | None) -> Usage:
    """A Usage from a normalised self-report ({input_tokens, output_tokens, ...}); cost stays None (unmetered)."""
    if not report:
        return Usage(model=model)
    counts: dict[str, int] = {}
    for name in _INT_FIELDS:
        value = report.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            counts[name] = int(value)
    return Usage(
        model=report.get("model") if isinstance(report.get("model"), str) else model, source="agent-report", **counts
    )
