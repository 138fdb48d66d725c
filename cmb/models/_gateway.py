"""How an agent reaches its model: what the gateway hands out and the runner passes to the agent."""

from __future__ import annotations

from pydantic import Field

from cmb.models._base import CmbModel


class GatewayAccess(CmbModel):
    """A base URL (no trailing /v1), a per-run key, a model name; all None when the agent needs no model."""

    base_url: str | None = Field(default=None, description="Gateway URL as the sandbox reaches it, without /v1")
    api_key: str | None = Field(default=None, description="The attempt's gateway token (never a provider key)")
    model: str | None = Field(default=None, description="Model name the agent asks for")
