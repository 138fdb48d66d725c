"""Prices: the pinned genai-prices table (bundled data, never updated at run time) plus configured overrides."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from importlib.metadata import version

from cmb.gateway._tokens import TokenCounts


class PriceTable:
    """USD price of one request's tokens; None when the model is not in the table (never a made-up 0)."""

    def __init__(self, overrides: dict[str, dict[str, float]] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self.version = f"genai-prices=={version('genai-prices')}"
        if self.overrides:
            digest = hashlib.sha256(json.dumps(self.overrides, sort_keys=True).encode()).hexdigest()[:8]
            self.version += f"+overrides.{digest}"

    def price(self, model: str, provider: str | None, counts: TokenCounts, at: datetime | None = None) -> float | None:
        """Cost of `counts` on `model`; an override (per million tokens) wins over the table."""
        override = self.overrides.get(model) or (self.overrides.get(f"{provider}/{model}") if provider else None)
        if override is not None:
            per = 1e-6
            uncached = counts.input - counts.cached
            cached_rate = override.get("cached", override.get("input", 0.0))
            return (
                uncached * override.get("input", 0.0) * per
                + counts.cached * cached_rate * per
                + counts.output * override.get("output", 0.0) * per
            )
        if provider is None:
            return None  # a local or unnamed server: guessing a price from a model name would mislead
        from genai_prices import Usage, calc_price  # imported lazily: loading the table takes a moment

        usage = Usage(
            input_tokens=counts.input,
            output_tokens=counts.output,
            cache_read_tokens=counts.cached or None,
            cache_write_tokens=counts.cache_write or None,
        )
        try:
            calc = calc_price(usage, model, provider_id=provider, genai_request_timestamp=at)
        except LookupError:
            return None
        return float(calc.total_price)
