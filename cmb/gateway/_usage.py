"""Token counts read from upstream usage objects, and the per-attempt usage summary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from cmb.gateway._config import Budget
from cmb.models import CmbModel, Usage


def _int(d: Any, *path: str) -> int:
    for key in path:
        if not isinstance(d, dict):
            return 0
        d = d.get(key)
    return int(d) if isinstance(d, int | float) and not isinstance(d, bool) and d > 0 else 0


@dataclass
class TokenCounts:
    """One request's tokens. `input` includes cached and cache-write tokens; `output` includes reasoning."""

    input: int = 0
    output: int = 0
    cached: int = 0
    reasoning: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        """Input plus output tokens (what a token budget counts)."""
        return self.input + self.output

    def add(self, other: TokenCounts) -> None:
        """Accumulate another request's counts."""
        self.input += other.input
        self.output += other.output
        self.cached += other.cached
        self.reasoning += other.reasoning
        self.cache_write += other.cache_write

    def as_dict(self) -> dict[str, int]:
        """Plain fields for records."""
        return {
            "input_tokens": self.input,
            "output_tokens": self.output,
            "cached_tokens": self.cached,
            "reasoning_tokens": self.reasoning,
            "cache_write_tokens": self.cache_write,
        }


def chat_counts(usage: Any) -> TokenCounts | None:
    """From an OpenAI chat-completions `usage` object (prompt/completion tokens and their details)."""
    if not isinstance(usage, dict):
        return None
    cached = _int(usage, "prompt_tokens_details", "cached_tokens") or _int(usage, "prompt_cache_hit_tokens")
    return TokenCounts(
        input=_int(usage, "prompt_tokens"),
        output=_int(usage, "completion_tokens"),
        cached=cached,
        reasoning=_int(usage, "completion_tokens_details", "reasoning_tokens"),
    )


def responses_counts(usage: Any) -> TokenCounts | None:
    """From an OpenAI Responses `usage` object."""
    if not isinstance(usage, dict):
        return None
    return TokenCounts(
        input=_int(usage, "input_tokens"),
        output=_int(usage, "output_tokens"),
        cached=_int(usage, "input_tokens_details", "cached_tokens"),
        reasoning=_int(usage, "output_tokens_details", "reasoning_tokens"),
    )


def messages_counts(usage: Any) -> TokenCounts | None:
    """From an Anthropic Messages `usage` object, whose input_tokens exclude cache reads and writes."""
    if not isinstance(usage, dict):
        return None
    read = _int(usage, "cache_read_input_tokens")
    write = _int(usage, "cache_creation_input_tokens")
    return TokenCounts(
        input=_int(usage, "input_tokens") + read + write,
        output=_int(usage, "output_tokens"),
        cached=read,
        cache_write=write,
    )


COUNTERS = {"chat": chat_counts, "responses": responses_counts, "messages": messages_counts}


class InfraEvent(CmbModel):
    """An upstream fault the gateway saw: retried, or given up on (then the attempt met an infrastructure failure)."""

    at: str = Field(description="ISO time")
    kind: str = Field(description="upstream-status, upstream-connection, upstream-timeout, upstream-stream, gave-up")
    detail: str = ""
    status: int | None = None
    retry: int = Field(default=0, description="Retry number this fault led to (0: none)")


class AttemptUsage(CmbModel):
    """What the gateway metered for one attempt token: the runner turns it into RunRecord.usage."""

    attempt: str
    model: str | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="None when any request was unpriced or unmetered")
    price_table: str | None = None
    unpriced_requests: int = Field(default=0, description="Requests whose model the price table lacks")
    unmetered_requests: int = Field(default=0, description="Upstream replies that carried no usage")
    budget: Budget = Field(default_factory=Budget)
    budget_refusals: int = Field(default=0, description="Requests refused with 429 for the budget")
    upstream_retries: int = 0
    upstream_failures: int = Field(default=0, description="Requests that failed after every retry")
    infra_events: list[InfraEvent] = Field(default_factory=list)
    transcript: str | None = Field(default=None, description="Path of the JSONL transcript")

    @property
    def infrastructure_failed(self) -> bool:
        """True when the upstream failed the agent at least once after every retry."""
        return self.upstream_failures > 0

    def to_usage(self) -> Usage:
        """The RunRecord.usage of the attempt."""
        return Usage(
            model=self.model,
            requests=self.requests,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_tokens=self.cached_tokens,
            reasoning_tokens=self.reasoning_tokens,
            model_cost_usd=self.cost_usd,
            price_table=self.price_table,
            source="gateway",
        )
