"""Benchmark figures as data: each one a value with its unit, and the baseline it is compared with, measured in the
same run; `--json` prints them, and bench/readme_figures.py makes the README's table from that JSON."""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import UTC, datetime
from typing import Any, TextIO


class Figures:
    """The figures of one benchmark run, in the order they were measured."""

    def __init__(self, bench: str) -> None:
        self.bench = bench
        self.figures: dict[str, dict[str, Any]] = {}

    def add(self, name: str, what: str, value: float, unit: str, baseline: float | None = None,
            baseline_what: str = "") -> None:  # fmt: skip
        """One figure; `ratio` is value / baseline (None without a baseline)."""
        self.figures[name] = {
            "what": what,
            "value": value,
            "unit": unit,
            "baseline": baseline,
            "baseline_what": baseline_what,
            "ratio": value / baseline if baseline else None,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
            "figures": self.figures,
        }

    def dump(self, stream: TextIO = sys.stdout) -> None:
        json.dump(self.as_dict(), stream, indent=1)
        stream.write("\n")
