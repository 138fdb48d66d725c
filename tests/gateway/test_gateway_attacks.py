"""The gateway under attack: tokens that reach for other attempts or the admin API, concurrent requests against a
small budget, upstreams that send garbage or never finish, secrets pasted into requests."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cmb.gateway import Budget
from tests.gateway.helpers import UPSTREAM_KEY, post, sse, transcript

CHAT = {"messages": [{"role": "user", "content": "hi"}], "model": "whatever"}
MODEL = "test/gpt-4o-mini"
USAGE = {"prompt": 1000, "cached": 0, "completion": 500}
# gpt-4o-mini in the pinned table: 0.15 USD/M input, 0.60 output
REQUEST_COST = 1000 * 0.15e-6 + 500 * 0.60e-6


def _call(method: str, url: str, token: str | None, doc: dict | None = None) -> int:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(doc).encode() if doc is not None else None
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


# -- tokens ----------------------------------------------------------------------------------------------------------


def test_an_attempt_token_opens_no_admin_route_and_no_other_attempt(stack):
    up, gw = stack([{"content": "for b", "usage": USAGE}])
    mine = gw.issue("s/a/t/SF/0", MODEL)
    other = gw.issue("s/b/t/SF/0", MODEL)
    base = gw.base_url
    admin = f"http://127.0.0.1:{gw.port}"
    for token in (mine, None, "not-a-key", f"{gw.admin_key}x", gw.admin_key[:-1]):
        assert _call("GET", f"{admin}/admin/usage?attempt=s/b/t/SF/0", token) == 401
        assert _call("POST", f"{admin}/admin/tokens", token, {"attempt": "s/a/t/SF/0", "model": MODEL}) == 401
        assert _call("DELETE", f"{admin}/admin/tokens?attempt=s/b/t/SF/0", token) == 401
    # b's request lands in b's records only; a's token lists only a's model and a's records stay empty of it
    assert post(f"{base}/v1/chat/completions", CHAT, other)[0] == 200
    assert gw.usage("s/a/t/SF/0").requests == 0 and gw.usage("s/b/t/SF/0").requests == 1
    assert not any("for b" in json.dumps(line) for line in transcript(gw, "s/a/t/SF/0"))
    # b's token still works: nothing a's token did revoked or reissued it
    assert gw.gateway.registry.lookup(other) is not None and gw.gateway.registry.lookup(mine) is not None


def test_a_revoked_or_replaced_token_is_refused(stack):
    up, gw = stack([{"content": "x", "usage": USAGE}] * 2)
    first = gw.issue("s/a/t/SF/0", MODEL)
    second = gw.issue("s/a/t/SF/0", MODEL)  # a retried launch
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, first)[0] == 401
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, second)[0] == 200
    gw.revoke("s/a/t/SF/0")
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, second)[0] == 401


# -- budgets under concurrency ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_fifty_parallel_requests_overrun_a_small_budget_by_at_most_one_request(stack, stream):
    budget_usd = 3.5 * REQUEST_COST
    up, gw = stack([{"content": "x", "usage": USAGE, "hang": 0.05}] * 50)
    token = gw.issue("s/a/t/SF/0", MODEL, Budget(max_cost_usd=budget_usd))
    body = {**CHAT, "stream": stream, "stream_options": {"include_usage": True}}
    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(lambda _: post(f"{gw.base_url}/v1/chat/completions", body, token)[0], range(50)))
    u = gw.usage("s/a/t/SF/0")
    assert statuses.count(200) == 4 and statuses.count(429) == 46 and len(up.requests) == 4
    assert u.cost_usd == pytest.approx(4 * REQUEST_COST)
    assert u.cost_usd <= budget_usd + REQUEST_COST and u.budget_refusals == 46


def test_fifty_parallel_requests_against_a_request_budget(stack):
    up, gw = stack([{"content": "x", "usage": USAGE}] * 50)
    token = gw.issue("s/a/t/SF/0", MODEL, Budget(max_requests=5))
    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(lambda _: post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0], range(50)))
    assert statuses.count(200) == 5 and len(up.requests) == 5


def test_unbudgeted_attempts_are_not_serialised(stack):
    """Without a budget, requests of one attempt run side by side (no lock is taken)."""
    up, gw = stack([{"content": "x", "usage": USAGE, "hang": 1.0}] * 8)
    token = gw.issue("s/a/t/SF/0", MODEL)
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda _: post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0], range(8)))
    assert statuses == [200] * 8 and time.monotonic() - t0 < 4.0


# -- upstreams that misbehave ----------------------------------------------------------------------------------------


def test_garbage_from_the_upstream_is_an_infrastructure_failure(stack):
    up, gw = stack([{"raw": "<html>502 Bad Gateway from a proxy</html>"}])
    token = gw.issue("s/a/t/SF/0", MODEL)
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 502 and "upstream" in json.loads(raw)["error"]["message"]
    u = gw.usage("s/a/t/SF/0")
    assert u.infrastructure_failed and u.infra_events[-1].kind == "gave-up" and u.cost_usd is None


def test_a_stream_that_never_ends_is_cut_off_and_recorded(stack):
    up, gw = stack([{"forever": True}], max_reply_s=1.0)
    token = gw.issue("s/a/t/SF/0", MODEL)
    status, raw = post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "stream": True}, token)
    assert status == 200
    frames = sse(raw)
    assert any("cut off" in json.dumps(data) for _, data in frames)
    u = gw.usage("s/a/t/SF/0")
    assert u.infrastructure_failed and "cut off" in u.infra_events[-1].detail


def test_a_reply_that_trickles_forever_is_cut_off_after_every_retry(stack):
    up, gw = stack([{"forever": True}] * 4, max_reply_s=0.5)
    token = gw.issue("s/a/t/SF/0", MODEL)
    status, _ = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    u = gw.usage("s/a/t/SF/0")
    assert status == 502 and u.infrastructure_failed
    assert [e.kind for e in u.infra_events] == ["upstream-timeout"] * 4 + ["gave-up"]


# -- secrets ---------------------------------------------------------------------------------------------------------


def test_secrets_in_a_request_never_reach_the_transcript(stack):
    up, gw = stack([{"content": "noted", "usage": USAGE}])
    token = gw.issue("s/a/t/SF/0", MODEL)
    leaked = {
        "provider key": UPSTREAM_KEY,
        "own token": token,
        "admin key": gw.admin_key,
        "an OpenAI-shaped key": "sk-proj-" + "A1b2C3d4" * 5,
        "an AWS key id": "AKIA" + "ABCDEFGHIJKLMNOP",
    }
    text = "keys I found: " + "; ".join(f"{k}={v}" for k, v in leaked.items())
    body = {"messages": [{"role": "user", "content": text}], "model": "whatever"}
    assert post(f"{gw.base_url}/v1/chat/completions", body, token)[0] == 200
    written = Path(gw.usage("s/a/t/SF/0").transcript or "").read_text(encoding="utf-8")
    assert "keys I found" in written and "[redacted]" in written
    for what, secret in leaked.items():
        assert secret not in written, what
