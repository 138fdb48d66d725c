"""Gateway configuration: upstream providers, budgets, where records go."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, field_validator

from cmb.gateway.dialects import DIALECTS
from cmb.models import CmbModel


class UpstreamConfig(CmbModel):
    """One provider or local server the gateway forwards to."""

    base_url: str = Field(description="Base URL including the version prefix, e.g. https://api.openai.com/v1")
    apis: list[str] = Field(
        default_factory=lambda: ["chat"],
        description="Dialects the upstream serves natively (chat, responses, messages)",
    )
    key_env: str | None = Field(default=None, description="Environment variable holding the provider key")
    price_provider: str | None = Field(
        default=None, description="Provider id in the price table; None prices nothing (a local server)"
    )
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = Field(
        default="max_tokens", description="Name of the output-token limit the chat API of this upstream accepts"
    )
    flatten_content: bool = Field(
        default=False, description="Send chat message content as one string (for servers that reject part lists)"
    )
    drop_fields: list[str] = Field(default_factory=list, description="Chat request fields this upstream rejects")
    json_schema_style: Literal["openai", "llama-cpp-python"] = Field(
        default="openai",
        description="How a JSON-schema response_format is sent: OpenAI's json_schema, or llama-cpp-python's "
        "json_object with a schema (its server rejects the OpenAI form)",
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra headers sent upstream")
    timeout_s: float = Field(default=600.0, gt=0, description="Seconds to wait for upstream bytes")
    max_reply_s: float = Field(
        default=1800.0,
        gt=0,
        description="Seconds one reply may take in all (an upstream that trickles or streams forever is cut off)",
    )

    @field_validator("base_url")
    @classmethod
    def _strip(cls, v: str) -> str:
        return v.rstrip("/")

    @field_validator("apis")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        unknown = sorted(set(v) - set(DIALECTS))
        if unknown:
            raise ValueError(f"unknown dialects {unknown}; known: {sorted(DIALECTS)}")
        return v

    def key(self) -> str | None:
        """The provider key, read from the environment when needed (never stored in records)."""
        return os.environ.get(self.key_env) if self.key_env else None


# Built-in providers: a user only has to export the key. A model is named "<upstream>/<model>".
DEFAULT_UPSTREAMS: dict[str, UpstreamConfig] = {
    "openai": UpstreamConfig(
        base_url="https://api.openai.com/v1",
        apis=["chat", "responses"],
        key_env="OPENAI_API_KEY",
        price_provider="openai",
        max_tokens_field="max_completion_tokens",
    ),
    "anthropic": UpstreamConfig(
        # Anthropic serves its Messages API and an OpenAI-compatible chat endpoint under the same /v1.
        base_url="https://api.anthropic.com/v1",
        apis=["messages", "chat"],
        key_env="ANTHROPIC_API_KEY",
        price_provider="anthropic",
        headers={"anthropic-version": "2023-06-01"},
    ),
}


class Budget(CmbModel):
    """Limits of one attempt; a request past any of them is refused with HTTP 429."""

    max_tokens: int | None = Field(default=None, ge=0, description="Input plus output tokens")
    max_cost_usd: float | None = Field(default=None, ge=0, description="Metered cost (ignored for unpriced models)")
    max_requests: int | None = Field(default=None, ge=0, description="Model requests")

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        return self.max_tokens is not None or self.max_cost_usd is not None or self.max_requests is not None


class RetryPolicy(CmbModel):
    """Retries of upstream faults (5xx, 429, connection errors, timeouts): exponential backoff with full jitter."""

    max_retries: int = Field(default=4, ge=0)
    base_delay_s: float = Field(default=0.5, ge=0)
    max_delay_s: float = Field(default=30.0, ge=0)


class GatewayConfig(CmbModel):
    """Everything the gateway needs besides the per-attempt tokens."""

    upstreams: dict[str, UpstreamConfig] = Field(default_factory=lambda: dict(DEFAULT_UPSTREAMS))
    default_upstream: str | None = Field(default=None, description="Upstream of a model named without a prefix")
    default_budget: Budget = Field(default_factory=Budget)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    records_dir: Path = Field(default=Path("cmb-data/gateway"), description="Transcripts and usage per attempt")
    prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Price overrides in USD per million tokens by model name: {input, output, cached}; "
        "for local models (price 0) or models the table lacks",
    )

    @classmethod
    def from_yaml(cls, path: Path, **overrides: object) -> GatewayConfig:
        """Load a YAML file; its upstreams are added to (and may replace) the built-in ones."""
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: a gateway config is a mapping")
        upstreams = dict(DEFAULT_UPSTREAMS)
        for name, spec in (raw.pop("upstreams", None) or {}).items():
            upstreams[name] = UpstreamConfig.model_validate(spec)
        return cls.model_validate({**raw, "upstreams": upstreams, **overrides})
