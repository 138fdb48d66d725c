"""The live progress line on stderr: queued / running / done, pass rate, cost and ETA.

On a terminal the line is redrawn in place; in a log (CI, a Ray job) a full line is printed at most every
`log_every_s` seconds, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from cmb.models import FailureClass


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


@dataclass
class Progress:
    """Counters of one driver session, and their rendering."""

    total: int
    skipped: int = 0
    running: int = 0
    done: int = 0
    passed: int = 0
    infrastructure: int = 0
    retries: int = 0
    cost: float = 0.0
    unpriced: int = 0
    mlflow_pending: int = 0  # stored, not yet in MLflow (the mirror follows the store)
    started: float = field(default_factory=time.monotonic)

    @property
    def queued(self) -> int:
        """Attempts neither skipped, running nor done."""
        return self.total - self.skipped - self.running - self.done

    def finished(self, passed: bool | None, failure_class: str | None, cost: float | None) -> None:
        """Count one recorded attempt."""
        self.done += 1
        if failure_class == FailureClass.INFRASTRUCTURE.value:
            self.infrastructure += 1
        elif passed:
            self.passed += 1
        if cost is None:
            self.unpriced += 1
        else:
            self.cost += cost

    def pass_rate(self) -> float | None:
        """Passed over attempts the agent is accountable for (infrastructure failures excluded)."""
        counted = self.done - self.infrastructure
        return self.passed / counted if counted else None

    def eta_s(self) -> float | None:
        """Seconds left at this session's completion rate."""
        elapsed = time.monotonic() - self.started
        if not self.done or elapsed <= 0:
            return None
        remaining = self.queued + self.running
        return remaining / (self.done / elapsed)

    def line(self) -> str:
        """One status line."""
        rate = self.pass_rate()
        eta = self.eta_s()
        parts = [
            f"queued {self.queued}",
            f"running {self.running}",
            f"done {self.done + self.skipped}/{self.total}" + (f" ({self.skipped} earlier)" if self.skipped else ""),
            f"pass {rate:.0%}" if rate is not None else "pass -",
            f"cost ${self.cost:.2f}" + (f" (+{self.unpriced} unpriced)" if self.unpriced else ""),
        ]
        if self.retries or self.infrastructure:
            parts.append(f"infra retries {self.retries}, failed {self.infrastructure}")
        if self.mlflow_pending:
            parts.append(f"mlflow pending {self.mlflow_pending}")
        parts.append(f"ETA {_duration(eta)}" if eta is not None else "ETA -")
        parts.append(f"elapsed {_duration(time.monotonic() - self.started)}")
        return " · ".join(parts)


class ProgressDisplay:
    """Draws a Progress on a stream: in place on a terminal, as periodic lines otherwise."""

    def __init__(self, progress: Progress, stream: TextIO | None = None, *, enabled: bool = True) -> None:
        self.progress = progress
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.log_every_s = 10.0
        self._last = 0.0
        self._width = 0

    def update(self, *, force: bool = False) -> None:
        """Redraw (terminal) or print a line if enough time passed (log)."""
        if not self.enabled:
            return
        now = time.monotonic()
        line = self.progress.line()
        if self.tty:
            pad = max(0, self._width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._width = len(line)
            self.stream.flush()
        elif force or now - self._last >= self.log_every_s:
            self.stream.write(line + "\n")
            self.stream.flush()
            self._last = now

    def message(self, text: str) -> None:
        """A message on its own line, the status line redrawn after it."""
        if self.tty and self.enabled:
            self.stream.write("\r" + " " * self._width + "\r")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._width = 0

    def close(self) -> None:
        """Final line."""
        if not self.enabled:
            return
        self.update(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
