"""One request's token counts, as each dialect reads them from its usage objects."""

from __future__ import annotations

from dataclasses import dataclass


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
