"""Helpers for gateway tests: a gateway in front of the scripted test upstream, HTTP calls, SSE parsing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from cmb.gateway import GatewayConfig, LocalGateway, RetryPolicy, UpstreamConfig

UPSTREAM_KEY = "sk-upstream-secret"
KEY_ENV = "CMB_TEST_UPSTREAM_KEY"
CHAT = {"messages": [{"role": "user", "content": "hi"}], "model": "whatever"}


def make_gateway(
    upstream_url: str, records: Any, *, apis: list[str] | None = None, hosts: list[str] | None = None, **upstream: Any
) -> LocalGateway:
    """A started gateway whose upstream `test` is the scripted server, priced as OpenAI, fast retries.

    `hosts`: the addresses it listens on (default loopback; `sandbox_hosts()` for docker sandboxes)."""
    spec: dict[str, Any] = {
        "base_url": upstream_url,
        "apis": apis or ["chat"],
        "key_env": KEY_ENV,
        "price_provider": "openai",
        **upstream,
    }
    config = GatewayConfig(
        upstreams={"test": UpstreamConfig(**spec)},
        retry=RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05),
        records_dir=records,
    )
    return LocalGateway(config, hosts=hosts).start()


def post(url: str, body: dict[str, Any], token: str | None, header: str = "Authorization") -> tuple[int, bytes]:
    """POST JSON; returns (status, raw body) for errors too."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers[header] = f"Bearer {token}" if header == "Authorization" else token
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def sse(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, decoded data) of every frame of an SSE body; data stays a string when not JSON."""
    frames = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        event, data = None, []
        for line in block.splitlines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        text = "\n".join(data)
        try:
            frames.append((event, json.loads(text)))
        except ValueError:
            frames.append((event, text))
    return frames


def transcript(gw: LocalGateway, attempt: str) -> list[dict[str, Any]]:
    """The attempt's transcript lines."""
    summary = gw.usage(attempt)
    assert summary is not None and summary.transcript is not None
    lines = Path(summary.transcript).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]
