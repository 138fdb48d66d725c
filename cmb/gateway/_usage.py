"""The per-attempt usage summary and the upstream faults the gateway saw."""

from __future__ import annotations

from pydantic import Field

from cmb.gateway._config import Budget
from cmb.models import CmbModel, Usage


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
            upstream_failures=self.upstream_failures,
        )
