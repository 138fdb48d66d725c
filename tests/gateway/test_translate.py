"""Responses and Messages clients on a chat-only upstream: requests translated, streams re-sequenced."""

from __future__ import annotations

import itertools
import json

from cmb.gateway import UpstreamConfig
from cmb.gateway.dialects import MESSAGES, RESPONSES, route_for
from tests.gateway.helpers import post, sse

REPLY = {
    "reasoning": "think about the fit first",
    "content": "I will run the fit now.",
    "tool_calls": [{"id": "call_abc", "name": "run_shell", "arguments": {"command": "python3 fit.py", "timeout": 60}}],
    "usage": {"prompt": 1200, "cached": 1000, "completion": 80, "reasoning": 25},
}
CHAT_ONLY = UpstreamConfig(base_url="http://x/v1")


def _to_chat_only(dialect, body):
    route = route_for(dialect, CHAT_ONLY)
    assert route is not None and route.translated
    return route.request(body, CHAT_ONLY, "m")


def _collapse(names):
    return [k for k, _ in itertools.groupby(names)]


def test_responses_stream_from_a_chat_upstream_has_the_real_event_sequence(stack):
    up, gw = stack([REPLY])
    token = gw.issue("s/codex/t/SF/0", "test/gpt-4o-mini")
    body = {
        "model": "gpt-5-codex",
        "instructions": "be brief",
        "input": "fit it",
        "stream": True,
        "tools": [{"type": "function", "name": "run_shell", "parameters": {"type": "object"}}],
    }
    status, raw = post(f"{gw.base_url}/v1/responses", body, token)
    assert status == 200
    frames = sse(raw)
    assert all(name == data["type"] for name, data in frames)  # event: line matches the payload type
    assert [d["sequence_number"] for _, d in frames] == list(range(len(frames)))
    assert _collapse([n for n, _ in frames]) == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    text = "".join(d["delta"] for n, d in frames if n == "response.output_text.delta")
    assert text == REPLY["content"]
    done = frames[-1][1]["response"]
    assert done["status"] == "completed"
    kinds = [item["type"] for item in done["output"]]
    assert kinds == ["reasoning", "message", "function_call"]
    call = done["output"][2]
    assert call["call_id"] == "call_abc" and call["name"] == "run_shell"
    assert json.loads(call["arguments"]) == REPLY["tool_calls"][0]["arguments"]
    assert done["usage"] == {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 1000},
        "output_tokens": 80,
        "output_tokens_details": {"reasoning_tokens": 25},
        "total_tokens": 1280,
    }
    # what went upstream was a chat request, with the instructions as the system message
    sent = up.requests[0]
    assert sent["messages"][:2] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fit it"}]
    assert sent["tools"][0]["function"]["name"] == "run_shell" and sent["stream_options"]["include_usage"]
    u = gw.usage("s/codex/t/SF/0")
    assert (u.input_tokens, u.cached_tokens, u.output_tokens, u.reasoning_tokens) == (1200, 1000, 80, 25)


def test_responses_non_streamed_and_output_limit_is_incomplete(stack):
    up, gw = stack([{"content": "short"}, {"content": "cut", "finish_reason": "length"}])
    token = gw.issue("s/codex/t/SF/0", "test/m")
    _, raw = post(f"{gw.base_url}/v1/responses", {"input": "x", "max_output_tokens": 10}, token)
    resp = json.loads(raw)
    assert resp["object"] == "response" and resp["status"] == "completed"
    assert resp["output"][0]["content"][0] == {"type": "output_text", "text": "short", "annotations": []}
    assert up.requests[0]["max_tokens"] == 10
    _, raw = post(f"{gw.base_url}/v1/responses", {"input": "x", "stream": True}, token)
    last = sse(raw)[-1]
    assert last[0] == "response.incomplete" and last[1]["response"]["incomplete_details"] == {
        "reason": "max_output_tokens"
    }


def test_messages_stream_from_a_chat_upstream_has_the_real_event_sequence(stack):
    up, gw = stack([REPLY])
    token = gw.issue("s/claude/t/SF/0", "test/gpt-4o-mini")
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": True,
        "system": [{"type": "text", "text": "be brief"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "fit it"}]}],
        "tools": [{"name": "run_shell", "description": "run", "input_schema": {"type": "object"}}],
    }
    status, raw = post(f"{gw.base_url}/v1/messages", body, token, header="x-api-key")  # Anthropic SDK auth
    assert status == 200
    frames = sse(raw)
    assert all(name == data["type"] for name, data in frames)
    assert _collapse([n for n, _ in frames]) == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",  # thinking (+ signature delta)
        "content_block_start",
        "content_block_delta",
        "content_block_stop",  # text
        "content_block_start",
        "content_block_delta",
        "content_block_stop",  # tool_use
        "message_delta",
        "message_stop",
    ]
    starts = [d["content_block"] for n, d in frames if n == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "text", "tool_use"]
    assert starts[2]["id"] == "call_abc" and starts[2]["name"] == "run_shell" and starts[2]["input"] == {}
    assert [d["index"] for n, d in frames if n == "content_block_start"] == [0, 1, 2]
    partial = "".join(
        d["delta"]["partial_json"]
        for n, d in frames
        if n == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    )
    assert json.loads(partial) == REPLY["tool_calls"][0]["arguments"]
    text = "".join(
        d["delta"]["text"] for n, d in frames if n == "content_block_delta" and d["delta"]["type"] == "text_delta"
    )
    assert text == REPLY["content"]
    delta = [d for n, d in frames if n == "message_delta"][0]
    assert delta["delta"]["stop_reason"] == "tool_use"
    assert delta["usage"] == {
        "input_tokens": 200,
        "output_tokens": 80,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 0,
    }
    assert up.requests[0]["messages"][0] == {"role": "system", "content": "be brief"}
    u = gw.usage("s/claude/t/SF/0")
    assert (u.input_tokens, u.cached_tokens, u.output_tokens) == (1200, 1000, 80)


def test_messages_non_streamed_tool_use(stack):
    up, gw = stack([REPLY])
    token = gw.issue("s/claude/t/SF/0", "test/m")
    _, raw = post(
        f"{gw.base_url}/v1/messages", {"max_tokens": 100, "messages": [{"role": "user", "content": "x"}]}, token
    )
    msg = json.loads(raw)
    assert msg["type"] == "message" and msg["stop_reason"] == "tool_use"
    assert [b["type"] for b in msg["content"]] == ["thinking", "text", "tool_use"]
    assert msg["content"][2]["input"] == REPLY["tool_calls"][0]["arguments"]


def test_native_messages_upstream_is_passed_through_and_metered_with_anthropic_semantics(stack):
    up, gw = stack([REPLY, REPLY], apis=["messages", "chat"])
    token = gw.issue("s/claude/t/SF/0", "test/claude-sonnet-4-5")
    body = {"max_tokens": 100, "messages": [{"role": "user", "content": "x"}]}
    _, raw = post(f"{gw.base_url}/v1/messages", body, token)
    assert json.loads(raw)["usage"]["input_tokens"] == 200  # excludes the cache read, as Anthropic reports it
    _, raw = post(f"{gw.base_url}/v1/messages", {**body, "stream": True}, token)
    assert sse(raw)[-1][0] == "message_stop"
    assert up.headers[0]["x-api-key"] == "sk-upstream-secret"  # Anthropic-style auth on a messages upstream
    u = gw.usage("s/claude/t/SF/0")
    assert (u.requests, u.input_tokens, u.cached_tokens, u.output_tokens) == (2, 2400, 2000, 160)


def test_native_responses_upstream_is_passed_through(stack):
    up, gw = stack([REPLY], apis=["chat", "responses"])
    token = gw.issue("s/codex/t/SF/0", "test/gpt-4o-mini")
    _, raw = post(f"{gw.base_url}/v1/responses", {"input": "x", "stream": True}, token)
    assert sse(raw)[-1][0] == "response.completed"
    assert "input" in up.requests[0]  # forwarded as a Responses request, not translated
    assert gw.usage("s/codex/t/SF/0").output_tokens == 80


def test_responses_request_translation_keeps_the_tool_history():
    body = {
        "instructions": "sys",
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev note"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "task"}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "calling"}]},
            {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"cmd": "ls"}'},
            {"type": "function_call", "call_id": "c2", "name": "shell", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "a.txt"},
            {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "ok"}]},
            {"type": "custom_tool_call", "call_id": "c3", "name": "apply_patch", "input": "*** Begin Patch"},
            {"type": "custom_tool_call_output", "call_id": "c3", "output": "done"},
        ],
        "tools": [
            {"type": "function", "name": "shell", "parameters": {"type": "object"}},
            {"type": "custom", "name": "apply_patch", "description": "patch"},
            {"type": "web_search"},
        ],
        "tool_choice": "auto",
        "reasoning": {"effort": "high"},
        "text": {"format": {"type": "json_schema", "name": "a", "schema": {"type": "object"}}},
    }
    out = _to_chat_only(RESPONSES, body)
    roles = [m["role"] for m in out["messages"]]
    assert roles == ["system", "system", "user", "assistant", "tool", "tool", "assistant", "tool"]
    assistant = out["messages"][3]
    assert assistant["content"] == "calling" and [c["id"] for c in assistant["tool_calls"]] == ["c1", "c2"]
    assert out["messages"][5]["content"] == "ok"
    assert json.loads(out["messages"][6]["tool_calls"][0]["function"]["arguments"]) == {"input": "*** Begin Patch"}
    assert [t["function"]["name"] for t in out["tools"]] == ["shell", "apply_patch"]  # the hosted tool is dropped
    assert out["reasoning_effort"] == "high" and out["response_format"]["type"] == "json_schema"


def test_custom_tool_call_comes_back_as_a_custom_item(stack):
    reply = {"tool_calls": [{"id": "c9", "name": "apply_patch", "arguments": {"input": "*** Begin Patch\n"}}]}
    up, gw = stack([reply, reply])
    token = gw.issue("s/codex/t/SF/0", "test/m")
    body = {"input": "x", "tools": [{"type": "custom", "name": "apply_patch"}]}
    _, raw = post(f"{gw.base_url}/v1/responses", body, token)
    item = json.loads(raw)["output"][0]
    assert item["type"] == "custom_tool_call" and item["input"] == "*** Begin Patch\n"
    _, raw = post(f"{gw.base_url}/v1/responses", {**body, "stream": True}, token)
    names = [n for n, _ in sse(raw)]
    assert "response.custom_tool_call_input.done" in names
    assert sse(raw)[-1][1]["response"]["output"][0]["input"] == "*** Begin Patch\n"


def test_messages_request_translation_orders_tool_results_before_text():
    body = {
        "system": "sys",
        "messages": [
            {"role": "user", "content": "task"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "text", "text": "running"},
                    {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a.txt"}]},
                    {"type": "text", "text": "continue"},
                ],
            },
        ],
        "tools": [{"name": "bash", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "ws"}],
        "tool_choice": {"type": "any"},
        "stop_sequences": ["END"],
        "max_tokens": 50,
    }
    out = _to_chat_only(MESSAGES, body)
    assert [m["role"] for m in out["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert out["messages"][2]["content"] == "running"
    assert json.loads(out["messages"][2]["tool_calls"][0]["function"]["arguments"]) == {"command": "ls"}
    assert out["messages"][3] == {"role": "tool", "tool_call_id": "t1", "content": "a.txt"}
    assert out["tool_choice"] == "required" and out["stop"] == ["END"] and out["max_tokens"] == 50
    assert [t["function"]["name"] for t in out["tools"]] == ["bash"]
