"""The gateway in front of the scripted test upstream: auth, metering, prices, budgets, retries, transcripts."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from cmb.gateway import Budget, GatewayClient, GatewayConfig, LocalGateway, RetryPolicy, UpstreamConfig, read_usage
from tests.gateway.helpers import UPSTREAM_KEY, post, sse, transcript

CHAT = {"messages": [{"role": "user", "content": "hi"}], "model": "whatever"}
# gpt-4o-mini in the pinned table: 0.15 USD/M input, 0.075 cached, 0.60 output
MINI_COST = 800 * 0.15e-6 + 200 * 0.075e-6 + 500 * 0.60e-6


def test_unknown_token_is_refused_in_the_shape_of_each_api(stack):
    up, gw = stack([{"content": "never"}])
    gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    for path, shape in (("chat/completions", "error"), ("responses", "error"), ("messages", "type")):
        status, raw = post(f"{gw.base_url}/v1/{path}", CHAT, "cmb-forged-token")
        assert status == 401, path
        assert shape in json.loads(raw)
    status, _ = post(f"{gw.base_url}/v1/chat/completions", CHAT, None)
    assert status == 401
    assert up.requests == []  # nothing reached the provider


def test_chat_request_is_metered_priced_and_transcribed_and_the_key_stays_inside(stack):
    up, gw = stack([{"content": "hello", "usage": {"prompt": 1000, "cached": 200, "completion": 500, "reasoning": 40}}])
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "max_tokens": 64}, token)
    assert status == 200
    assert json.loads(raw)["choices"][0]["message"]["content"] == "hello"
    # the pinned model wins over what the agent asked for; the provider got its key, never the attempt token
    assert up.requests[0]["model"] == "gpt-4o-mini"
    assert up.headers[0]["Authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert token not in json.dumps(up.headers)
    u = gw.usage("s/a/t/SF/0")
    assert (u.requests, u.input_tokens, u.output_tokens, u.cached_tokens, u.reasoning_tokens) == (1, 1000, 500, 200, 40)
    assert u.cost_usd == pytest.approx(MINI_COST)
    assert u.price_table is not None and u.price_table.startswith("genai-prices==")
    usage = gw.meter(__import__("cmb.models", fromlist=["RunKey"]).RunKey.parse("s/a/t/SF/0"))
    assert usage is not None and usage.source == "gateway" and usage.model_cost_usd == pytest.approx(MINI_COST)
    lines = transcript(gw, "s/a/t/SF/0")
    assert lines[0]["event"] == "token-issued"
    call = lines[-1]
    assert call["request"]["messages"][0]["content"] == "hi" and call["status"] == 200
    assert call["response"]["choices"][0]["message"]["content"] == "hello"
    assert call["usage"]["input_tokens"] == 1000 and call["cost_usd"] == pytest.approx(MINI_COST)
    assert UPSTREAM_KEY not in Path(u.transcript).read_text()
    # the usage file beside the transcript says the same without a server
    assert read_usage(gw.config.records_dir, "s/a/t/SF/0") == u


def test_output_limit_is_renamed_for_upstreams_that_want_max_completion_tokens(stack):
    up, gw = stack([{"content": "a"}], max_tokens_field="max_completion_tokens")
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "max_tokens": 64}, token)
    assert up.requests[0]["max_completion_tokens"] == 64 and "max_tokens" not in up.requests[0]


def test_streamed_chat_is_metered_and_the_client_gets_usage_only_when_it_asked(stack):
    replies = [{"content": "streamed text here", "usage": {"prompt": 300, "completion": 30}}] * 2
    up, gw = stack(replies)
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "stream": True}, token)
    assert status == 200
    frames = sse(raw)
    assert frames[-1][1] == "[DONE]"
    chunks = [d for _, d in frames if isinstance(d, dict)]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]) == "streamed text here"
    assert not any(c.get("usage") for c in chunks)  # hidden: this client did not ask for it
    assert up.requests[0]["stream_options"] == {"include_usage": True}  # but the gateway did
    _, raw = post(
        f"{gw.base_url}/v1/chat/completions", {**CHAT, "stream": True, "stream_options": {"include_usage": True}}, token
    )
    assert [d for _, d in sse(raw) if isinstance(d, dict) and d.get("usage")]
    u = gw.usage("s/a/t/SF/0")
    assert (u.requests, u.input_tokens, u.output_tokens) == (2, 600, 60)
    line = transcript(gw, "s/a/t/SF/0")[-1]
    assert line["stream"] and line["response"]["choices"][0]["message"]["content"] == "streamed text here"


def test_budget_overrun_is_a_readable_429_and_is_recorded(stack):
    up, gw = stack([{"content": "one", "usage": {"prompt": 900, "completion": 200}}, {"content": "two"}])
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini", Budget(max_tokens=1000))
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0] == 200
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 429
    err = json.loads(raw)["error"]
    assert err["code"] == "budget_exceeded" and "token budget exhausted: 1100 of 1000" in err["message"]
    status, raw = post(f"{gw.base_url}/v1/messages", {"messages": [], "max_tokens": 5}, token)
    assert status == 429 and json.loads(raw)["error"]["type"] == "rate_limit_error"
    assert len(up.requests) == 1  # refused requests never reach the provider
    u = gw.usage("s/a/t/SF/0")
    assert u.budget_refusals == 2 and u.requests == 1
    assert transcript(gw, "s/a/t/SF/0")[-1]["budget_exceeded"] is True


def test_request_and_cost_budgets(stack):
    up, gw = stack([{"content": "x", "usage": {"prompt": 1000, "cached": 200, "completion": 500}}] * 3)
    token = gw.issue("r/a/t/SF/0", "test/gpt-4o-mini", Budget(max_requests=2))
    assert [post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0] for _ in range(3)] == [200, 200, 429]
    token = gw.issue("c/a/t/SF/0", "test/gpt-4o-mini", Budget(max_cost_usd=MINI_COST / 2))
    assert [post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0] for _ in range(2)] == [200, 429]


def test_upstream_500_is_retried_then_recorded_as_infrastructure(stack):
    up, gw = stack([{"status": 500}, {"status": 503}, {"content": "finally", "usage": {"prompt": 10, "completion": 5}}])
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "finally"
    u = gw.usage("s/a/t/SF/0")
    assert u.upstream_retries == 2 and u.upstream_failures == 0 and not u.infrastructure_failed
    assert [(e.kind, e.status, e.retry) for e in u.infra_events] == [
        ("upstream-status", 500, 1),
        ("upstream-status", 503, 2),
    ]
    assert u.requests == 1 and u.input_tokens == 10
    lines = transcript(gw, "s/a/t/SF/0")
    assert [ln["kind"] for ln in lines if ln.get("event") == "infrastructure"] == ["upstream-status"] * 2
    assert lines[-1]["retries"] == 2


def test_upstream_that_keeps_failing_gives_the_agent_a_502_and_marks_the_attempt(stack):
    up, gw = stack([{"status": 500}] * 4)
    token = gw.issue("s/a/t/SF/0", "test/gpt-4o-mini")
    status, raw = post(f"{gw.base_url}/v1/responses", {"input": "hi", "model": "m"}, token)
    assert status == 502 and "failed after 4 tries" in json.loads(raw)["error"]["message"]
    u = gw.usage("s/a/t/SF/0")
    assert u.infrastructure_failed and u.upstream_failures == 1 and u.infra_events[-1].kind == "gave-up"
    assert u.cost_usd is None  # nothing metered: no made-up zero


def test_unreachable_upstream_is_a_connection_fault(tmp_path, monkeypatch):
    monkeypatch.setenv("CMB_TEST_UPSTREAM_KEY", "k")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    config = GatewayConfig(
        upstreams={"dead": UpstreamConfig(base_url=f"http://127.0.0.1:{port}/v1")},
        retry=RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.02),
        records_dir=tmp_path,
    )
    with LocalGateway(config) as gw:
        token = gw.issue("s/a/t/SF/0", "dead/m")
        assert post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0] == 502
        kinds = [e.kind for e in gw.usage("s/a/t/SF/0").infra_events]
    assert kinds == ["upstream-connection"] * 3 + ["gave-up"]


def test_unpriced_model_costs_none_not_zero(stack):
    up, gw = stack([{"content": "x", "usage": {"prompt": 10, "completion": 5}}])
    token = gw.issue("s/a/t/SF/0", "test/some-local-finetune-xyz")
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, token)[0] == 200
    u = gw.usage("s/a/t/SF/0")
    assert u.input_tokens == 10 and u.cost_usd is None and u.unpriced_requests == 1


def test_price_override_prices_a_local_model(tmp_path, monkeypatch):
    from tests.gateway.scripted_upstream import ScriptedUpstream

    with ScriptedUpstream([{"content": "x", "usage": {"prompt": 2_000_000, "completion": 1_000_000}}], key="") as up:
        config = GatewayConfig(
            upstreams={"local": UpstreamConfig(base_url=up.base_url)},
            prices={"tiny": {"input": 0.5, "output": 2.0}},
            records_dir=tmp_path,
        )
        with LocalGateway(config) as gw:
            token = gw.issue("s/a/t/SF/0", "local/tiny")
            status, _ = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
            u = gw.usage("s/a/t/SF/0")
    assert status == 200
    assert "Authorization" not in up.headers[0]  # a keyless local server gets no key
    assert u.cost_usd == pytest.approx(3.0) and "+overrides." in (u.price_table or "")


def test_flattened_content_for_upstreams_that_reject_part_lists(stack):
    up, gw = stack([{"content": "x"}], flatten_content=True)
    token = gw.issue("s/a/t/SF/0", "test/m")
    parts = [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]
    post(f"{gw.base_url}/v1/chat/completions", {"messages": [{"role": "user", "content": parts}]}, token)
    assert up.requests[0]["messages"][0]["content"] == "line one\nline two"


def test_missing_provider_key_is_an_infrastructure_failure(stack, monkeypatch):
    up, gw = stack([{"content": "x"}])
    monkeypatch.delenv("CMB_TEST_UPSTREAM_KEY")
    token = gw.issue("s/a/t/SF/0", "test/m")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 502 and "CMB_TEST_UPSTREAM_KEY" in json.loads(raw)["error"]["message"]
    assert gw.usage("s/a/t/SF/0").infrastructure_failed and up.requests == []


def test_unroutable_model_is_a_400_and_a_bad_pinned_model_fails_at_issue(stack):
    up, gw = stack([])
    token = gw.issue("s/a/t/SF/0")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "model": "nowhere/m"}, token)
    assert status == 400 and "names no upstream" in json.loads(raw)["error"]["message"]
    with pytest.raises(Exception, match="names no upstream"):
        gw.issue("s/a/t/SF/1", "nowhere/m")


def test_admin_api_issues_tokens_reads_usage_and_revokes(stack):
    up, gw = stack([{"content": "x", "usage": {"prompt": 7, "completion": 3}}])
    client = gw.client()
    access = client.access("s/a/t/SF/0", "test/gpt-4o-mini", Budget(max_requests=5))
    assert access.base_url == gw.base_url and access.api_key and access.api_key.startswith("cmb-")
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, access.api_key)[0] == 200
    u = client.usage("s/a/t/SF/0")
    assert u is not None and u.input_tokens == 7 and u.budget.max_requests == 5
    assert client.usage("never/issued/t/SF/0") is None
    assert client.revoke("s/a/t/SF/0")
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, access.api_key)[0] == 401
    intruder = GatewayClient(gw.base_url, gw.base_url, "wrong-admin-key")
    with pytest.raises(RuntimeError, match="401"):
        intruder.issue("s/a/t/SF/9")


def test_reissuing_a_token_for_a_retried_attempt_revokes_the_old_one(stack):
    up, gw = stack([{"content": "x"}])
    old = gw.issue("s/a/t/SF/0", "test/m")
    new = gw.issue("s/a/t/SF/0", "test/m")
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, old)[0] == 401
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, new)[0] == 200


def test_models_endpoint_lists_the_pinned_model(stack):
    import urllib.request

    up, gw = stack([])
    token = gw.issue("s/a/t/SF/0", "test/m")
    req = urllib.request.Request(f"{gw.base_url}/v1/models", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req) as resp:
        assert [m["id"] for m in json.loads(resp.read())["data"]] == ["test/m"]


def test_json_schema_response_format_is_rewritten_for_llama_cpp_python(stack):
    up, gw = stack([{"content": "{}"}], json_schema_style="llama-cpp-python")
    token = gw.issue("s/a/t/SF/0", "test/m")
    schema = {"type": "object", "properties": {"code": {"type": "string"}}}
    rf = {"type": "json_schema", "json_schema": {"name": "action", "schema": schema}}
    post(f"{gw.base_url}/v1/chat/completions", {**CHAT, "response_format": rf}, token)
    assert up.requests[0]["response_format"] == {"type": "json_object", "schema": schema}


def test_provider_rejecting_the_gateway_key_is_infrastructure_not_the_agents_401(stack, monkeypatch):
    up, gw = stack([{"content": "x"}])
    monkeypatch.setenv("CMB_TEST_UPSTREAM_KEY", "sk-wrong")
    token = gw.issue("s/a/t/SF/0", "test/m")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 502 and "refused the gateway's key" in json.loads(raw)["error"]["message"]
    assert gw.usage("s/a/t/SF/0").infrastructure_failed


def test_upstream_400_is_passed_to_the_agent_in_its_api_shape(stack):
    up, gw = stack([{"status": 400}, {"status": 400}])
    token = gw.issue("s/a/t/SF/0", "test/m")
    status, raw = post(f"{gw.base_url}/v1/chat/completions", CHAT, token)
    assert status == 400 and json.loads(raw)["error"]["message"] == "scripted 400"
    status, raw = post(f"{gw.base_url}/v1/messages", {"max_tokens": 5, "messages": []}, token)
    assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
    u = gw.usage("s/a/t/SF/0")
    assert u.requests == 2 and not u.infrastructure_failed and u.upstream_retries == 0
