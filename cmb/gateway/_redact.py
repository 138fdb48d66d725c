"""Secrets never reach a transcript: the gateway's own keys, every attempt token, and strings shaped like API keys.

An agent may paste a key into a message (one it found, or its own gateway token); the transcript keeps the message
with the secret replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"

# Shapes of credentials as providers issue them; a false positive costs a few characters of a transcript.
KEY_SHAPES = (
    re.compile(r"\bcmb-[A-Za-z0-9_-]{32}\b"),  # gateway attempt tokens (TOKEN_PREFIX + token_urlsafe(24))
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),  # OpenAI, Anthropic (sk-ant-...), DeepSeek, most OpenAI-compatible APIs
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),  # GitHub tokens
    re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"),  # Hugging Face tokens
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),  # Google API keys
)
MIN_SECRET = 8  # shorter strings are not treated as secrets (they would blank ordinary words)


class Redactor:
    """Replaces the given secrets and key-shaped strings in a text."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # longest first, so a secret that contains another is replaced whole
        known = {s for s in secrets if s and len(s) >= MIN_SECRET}
        self._secrets = sorted(known, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        for shape in KEY_SHAPES:
            text = shape.sub(REDACTED, text)
        return text
