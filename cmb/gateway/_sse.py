"""Server-sent events: parse an upstream stream, write events for the client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any


@dataclass
class SseEvent:
    """One event: its name (None for unnamed) and its data, joined over data lines."""

    event: str | None
    data: str

    def json(self) -> dict[str, Any] | None:
        """The data as a JSON object, or None ([DONE], keep-alives, garbage)."""
        try:
            obj = json.loads(self.data)
        except ValueError:
            return None
        return obj if isinstance(obj, dict) else None


def encode(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One SSE frame."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


async def iter_sse(lines: AsyncIterator[bytes]) -> AsyncIterator[SseEvent]:
    """Events of a byte stream split into lines (comments and retry fields are skipped)."""
    event: str | None = None
    data: list[str] = []
    async for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(event, "\n".join(data))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield SseEvent(event, "\n".join(data))
