"""The dialect registry: the route table comes from it, a new API is one registration, each dialect owns its shapes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from cmb.gateway import Gateway, GatewayConfig, UpstreamConfig, make_app
from cmb.gateway.dialects import CHAT, DIALECTS, MESSAGES, RESPONSES, ChatDialect, route_for
from tests.gateway.helpers import UPSTREAM_KEY, post, sse


class ShoutDialect(ChatDialect):
    """A toy API: chat completions under another path, replies in capitals."""

    name = "shout"
    path = "/shout"

    def from_chat(self, data: dict[str, Any], client_body: dict[str, Any]) -> dict[str, Any]:
        message = data["choices"][0]["message"]
        return {"said": str(message.get("content") or "").upper()}


def test_route_table_is_built_from_the_registry(tmp_path, monkeypatch):
    monkeypatch.setitem(DIALECTS, "shout", ShoutDialect())
    app = make_app(Gateway(GatewayConfig(records_dir=tmp_path), "admin"))
    posts = {r.resource.canonical for r in app.router.routes() if r.method == "POST"}
    assert {f"/v1{d.path}" for d in DIALECTS.values()} <= posts
    assert {"/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/shout"} <= posts


def test_a_new_dialect_is_one_registration(stack, monkeypatch):
    monkeypatch.setitem(DIALECTS, "shout", ShoutDialect())
    up, gw = stack([{"content": "fit done"}])
    token = gw.issue("s/a/t/SF/0", "test/m")
    status, raw = post(f"{gw.base_url}/v1/shout", {"messages": [{"role": "user", "content": "x"}]}, token)
    assert status == 200 and json.loads(raw) == {"said": "FIT DONE"}
    assert up.requests[0]["model"] == "m"  # reached the chat-only upstream through the internal form
    assert gw.usage("s/a/t/SF/0").requests == 1


def test_routes_are_native_when_served_and_through_chat_otherwise():
    both = UpstreamConfig(base_url="http://x/v1", apis=["chat", "messages"])
    native = route_for(MESSAGES, both)
    assert native is not None and not native.translated and native.upstream is MESSAGES
    translated = route_for(RESPONSES, both)
    assert translated is not None and translated.translated and translated.upstream is CHAT
    assert route_for(CHAT, UpstreamConfig(base_url="http://x/v1", apis=["messages"])) is None


def test_upstream_apis_must_name_registered_dialects():
    with pytest.raises(ValidationError, match="unknown dialects.*mesages"):
        UpstreamConfig(base_url="http://x/v1", apis=["chat", "mesages"])


def test_the_provider_key_travels_in_the_header_of_the_upstreams_dialect(stack):
    up, gw = stack([{"content": "a"}, {"content": "b"}], apis=["chat"])
    token = gw.issue("s/claude/t/SF/0", "test/m")
    body = {"max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}
    assert post(f"{gw.base_url}/v1/messages", body, token, header="x-api-key")[0] == 200
    sent = {k.lower(): v for k, v in up.headers[0].items()}
    assert sent["authorization"] == f"Bearer {UPSTREAM_KEY}" and "x-api-key" not in sent  # a chat upstream's auth


def test_each_dialect_reads_the_token_its_clients_send():
    for dialect in DIALECTS.values():
        assert dialect.client_token({"Authorization": "Bearer tok"}) == "tok"
        assert dialect.client_token({"x-api-key": "tok"}) == "tok"
        assert dialect.client_token({"Authorization": "Basic abc"}) == ""


def test_each_dialect_ends_a_broken_stream_in_its_own_shape():
    def frame(dialect):
        [(event, data)] = sse(dialect.stream_error("upstream broke"))
        return event, data

    event, data = frame(CHAT)
    assert event is None and data["error"]["message"] == "upstream broke"
    event, data = frame(RESPONSES)
    assert event == "response.failed" and data["response"]["error"]["message"] == "upstream broke"
    event, data = frame(MESSAGES)
    assert event == "error" and data["error"] == {"type": "api_error", "message": "upstream broke"}


def test_each_dialect_renders_errors_in_its_own_shape():
    assert MESSAGES.error_body(429, "slow down", "budget_exceeded") == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }
    for dialect in (CHAT, RESPONSES):
        assert dialect.error_body(429, "slow down", "budget_exceeded")["error"]["type"] == "budget_exceeded"
        assert dialect.error_body(400, "bad", "invalid_request")["error"]["type"] == "invalid_request_error"
        assert dialect.error_body(502, "down", "upstream_error")["error"]["type"] == "server_error"
