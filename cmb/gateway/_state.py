"""Per-attempt tokens and what the gateway records for each: usage, budget, transcript, infrastructure events."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cmb import __version__
from cmb.gateway._atif import to_trajectory
from cmb.gateway._config import Budget
from cmb.gateway._tokens import TokenCounts
from cmb.gateway._usage import AttemptUsage, InfraEvent
from cmb.models import RunKey

TOKEN_PREFIX = "cmb-"
TRANSCRIPT = "transcript.jsonl"
SUMMARY = "usage.json"
TRAJECTORY = "trajectory.atif.json"


def now_iso() -> str:
    """UTC time for records."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def agent_name(attempt: str) -> str:
    """The agent of an attempt key, without its model (`codeact@openai:gpt-4o` -> `codeact`)."""
    try:
        return RunKey.parse(attempt).agent.partition("@")[0]
    except ValueError:
        return "agent"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file; a line that is not one (a write cut short) is left out."""
    out = []
    with path.open(encoding="utf-8") as f:
        for text in f:
            try:
                obj = json.loads(text)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def records_path(root: Path, attempt: str) -> Path:
    """Folder of one attempt's gateway records: <sweep>/<slug> for a run key, a safe name otherwise."""
    try:
        key = RunKey.parse(attempt)
    except ValueError:
        return root / "adhoc" / (re.sub(r"[^A-Za-z0-9._-]+", "_", attempt).strip("._") or "attempt")
    return root / key.sweep / key.slug


class AttemptState:
    """One token's attempt: counters guarded by a lock (the server thread and the runner both read them)."""

    def __init__(
        self,
        attempt: str,
        token: str,
        model: str | None,
        budget: Budget,
        folder: Path,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.attempt = attempt
        self.token = token
        self.model = model
        self.budget = budget
        self.folder = folder
        self.redact = redact or (lambda text: text)
        self.lock = threading.Lock()
        # Requests of a budgeted attempt go upstream one at a time, so concurrent requests cannot all pass the
        # budget check before any is charged (the overrun stays under one request's cost).
        self.serial = asyncio.Lock()
        self.counts = TokenCounts()
        self.requests = 0
        self.cost = 0.0
        self.unpriced = 0
        self.unmetered = 0
        self.metered = 0
        self.refusals = 0
        self.retries = 0
        self.failures = 0
        self.events: list[InfraEvent] = []
        self.seq = 0
        self.price_table: str | None = None

    @property
    def transcript(self) -> Path:
        """The JSONL transcript."""
        return self.folder / TRANSCRIPT

    def next_seq(self) -> int:
        """Number of the next transcript entry."""
        with self.lock:
            self.seq += 1
            return self.seq

    def over_budget(self) -> str | None:
        """Why the next request must be refused, or None."""
        b = self.budget
        with self.lock:
            if b.max_requests is not None and self.requests >= b.max_requests:
                return f"request budget exhausted: {self.requests} of {b.max_requests} requests used"
            if b.max_tokens is not None and self.counts.total >= b.max_tokens:
                return f"token budget exhausted: {self.counts.total} of {b.max_tokens} tokens used"
            if b.max_cost_usd is not None and self.unpriced == 0 and self.cost >= b.max_cost_usd:
                return f"cost budget exhausted: {self.cost:.4f} of {b.max_cost_usd:.4f} USD used"
        return None

    def add(self, counts: TokenCounts | None, price: float | None, price_table: str) -> None:
        """Account one answered request."""
        with self.lock:
            self.requests += 1
            self.price_table = price_table
            if counts is None:
                self.unmetered += 1
                return
            self.counts.add(counts)
            self.metered += 1
            if price is None:
                self.unpriced += 1
            else:
                self.cost += price

    def add_unanswered(self) -> None:
        """A request forwarded that got no usable reply (an upstream error, a failure after retries)."""
        with self.lock:
            self.requests += 1

    def event(self, kind: str, detail: str, status: int | None = None, retry: int = 0) -> InfraEvent:
        """Record an infrastructure event (also written to the transcript)."""
        ev = InfraEvent(at=now_iso(), kind=kind, detail=detail[:2000], status=status, retry=retry)
        with self.lock:
            self.events.append(ev)
            if retry:
                self.retries += 1
            if kind == "gave-up":
                self.failures += 1
        self.write({"event": "infrastructure", **ev.model_dump()})
        return ev

    def refused(self) -> None:
        """Count a budget refusal."""
        with self.lock:
            self.refusals += 1

    def summary(self) -> AttemptUsage:
        """The usage so far."""
        with self.lock:
            c = self.counts
            return AttemptUsage(
                attempt=self.attempt,
                model=self.model,
                requests=self.requests,
                input_tokens=c.input,
                output_tokens=c.output,
                cached_tokens=c.cached,
                reasoning_tokens=c.reasoning,
                cache_write_tokens=c.cache_write,
                cost_usd=None if (self.unpriced or self.unmetered or not self.metered) else round(self.cost, 10),
                price_table=self.price_table,
                unpriced_requests=self.unpriced,
                unmetered_requests=self.unmetered,
                budget=self.budget,
                budget_refusals=self.refusals,
                upstream_retries=self.retries,
                upstream_failures=self.failures,
                infra_events=list(self.events),
                transcript=str(self.transcript),
            )

    def write(self, entry: dict[str, Any]) -> None:
        """Append one JSON line to the transcript (one write per line, so lines never interleave)."""
        line = self.redact(json.dumps({"at": now_iso(), **entry}, default=str)) + "\n"
        with self.lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            with self.transcript.open("a", encoding="utf-8") as f:
                f.write(line)

    def save_summary(self) -> None:
        """usage.json beside the transcript, replaced atomically."""
        text = self.summary().model_dump_json(indent=2)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{SUMMARY}.{threading.get_ident()}"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.folder / SUMMARY)

    def save_trajectory(self) -> dict[str, Any] | None:
        """The attempt's ATIF trajectory, from its transcript, written beside it (None: no model request yet)."""
        lines = read_jsonl(self.transcript) if self.transcript.is_file() else []
        trajectory = to_trajectory(lines, self.attempt, agent_name(self.attempt), __version__, self.model)
        if trajectory is not None:
            tmp = self.folder / f".{TRAJECTORY}.{threading.get_ident()}"
            tmp.write_text(json.dumps(trajectory, indent=1), encoding="utf-8")
            tmp.replace(self.folder / TRAJECTORY)
        return trajectory


class Registry:
    """Tokens issued to attempts. A token maps to exactly one attempt; re-issuing revokes the earlier one."""

    def __init__(self, root: Path, redact: Callable[[str], str] | None = None) -> None:
        self.root = root
        self.redact = redact
        self.lock = threading.Lock()
        self.by_token: dict[str, AttemptState] = {}
        self.by_attempt: dict[str, AttemptState] = {}

    def issue(
        self, attempt: str, model: str | None = None, budget: Budget | None = None, folder: Path | None = None
    ) -> AttemptState:
        """A fresh token (and fresh counters) for `attempt`."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(24)
        state = AttemptState(
            attempt, token, model, budget or Budget(), folder or records_path(self.root, attempt), self.redact
        )
        with self.lock:
            old = self.by_attempt.pop(attempt, None)
            if old is not None:
                self.by_token.pop(old.token, None)
            self.by_token[token] = state
            self.by_attempt[attempt] = state
        state.write({"event": "token-issued", "attempt": attempt, "model": model, "budget": state.budget.model_dump()})
        state.save_summary()
        return state

    def lookup(self, token: str) -> AttemptState | None:
        """The attempt of a token (constant-time enough: a dict of random 192-bit strings)."""
        with self.lock:
            return self.by_token.get(token)

    def get(self, attempt: str) -> AttemptState | None:
        """The current state of an attempt."""
        with self.lock:
            return self.by_attempt.get(attempt)

    def revoke(self, attempt: str) -> bool:
        """Invalidate an attempt's token (its records stay)."""
        with self.lock:
            state = self.by_attempt.pop(attempt, None)
            if state is None:
                return False
            self.by_token.pop(state.token, None)
        state.write({"event": "token-revoked", "attempt": attempt})
        return True
