"""Gateway transcripts as ATIF trajectories (cmb.gateway._atif): constructed transcripts, exact steps and metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cmb.gateway._atif import NOTES, to_trajectory
from tests.harbor_atif import validate_atif

Json = dict[str, Any]
MODEL = "test/gpt-4o-mini"
KEY = "sw/react@test:gpt-4o-mini/t/SF/0"
SYSTEM = {"role": "system", "content": "You are an agent."}
USER = {"role": "user", "content": [{"type": "text", "text": "Fit the EOS."}]}
TOOLS = [{"type": "function", "function": {"name": "run_shell", "parameters": {"type": "object"}}}]
ISSUED = {"at": "2026-01-01T00:00:00.000+00:00", "event": "token-issued", "attempt": KEY, "model": MODEL}


def at(seq: int) -> str:
    return f"2026-01-01T00:00:{seq:02d}.000+00:00"


def usage(prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> Json:
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "cached_tokens": cached,
        "reasoning_tokens": reasoning,
        "cache_write_tokens": 0,
    }


def entry(seq: int, messages: list[Json], **fields: Any) -> Json:
    """A transcript line of one request, as the gateway writes it (chat on both sides)."""
    line = {
        "at": at(seq),
        "seq": seq,
        "api": "chat",
        "model": MODEL,
        "requested_model": MODEL,
        "upstream": "test",
        "upstream_api": "chat",
        "stream": False,
        "request": {"model": MODEL, "messages": messages, "tools": TOOLS},
        "retries": 0,
        "latency_s": 0.5,
    }
    return {**line, **fields}


def replied(seq: int, messages: list[Json], reply: Json, counts: Json | None, cost: float | None, **kw: Any) -> Json:
    response = {"object": "chat.completion", "choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]}
    line = entry(seq, messages, status=200, response=response, client_response=None, **kw)
    if counts is not None:
        line |= {"usage": counts, "cost_usd": cost}
    return line


def call(call_id: str, name: str, arguments: str) -> Json:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


REPLY_1 = {
    "role": "assistant",
    "content": "Look first.",
    "reasoning_content": "I should list the files.",
    "tool_calls": [call("call_1", "run_shell", '{"command": "ls"}'), call("call_2", "read_file", '{"path": "a"}')],
}
REQUEST_2 = [
    SYSTEM,
    USER,
    REPLY_1,
    {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"},
    {"role": "tool", "tool_call_id": "call_2", "content": "hello"},
]


def tool_calls_transcript() -> list[Json]:
    return [
        ISSUED,
        replied(1, [SYSTEM, USER], REPLY_1, usage(100, 20, reasoning=7), 0.001),
        replied(2, REQUEST_2, {"role": "assistant", "content": "Done."}, usage(150, 5, cached=100), 0.0005),
    ]


def test_tool_calls_their_observations_and_metrics():
    t = to_trajectory(tool_calls_transcript(), KEY, "react", "0.1.0")
    assert t is not None
    assert t["schema_version"] == "ATIF-v1.8" and t["session_id"] == KEY and t["notes"] == NOTES
    assert t["agent"] == {"name": "react", "version": "0.1.0", "model_name": MODEL, "tool_definitions": TOOLS}
    assert t["steps"] == [
        {"step_id": 1, "source": "system", "message": "You are an agent.", "timestamp": at(1)},
        {"step_id": 2, "source": "user", "message": "Fit the EOS.", "timestamp": at(1)},
        {
            "step_id": 3,
            "source": "agent",
            "message": "Look first.",
            "timestamp": at(1),
            "reasoning_content": "I should list the files.",
            "tool_calls": [
                {"tool_call_id": "call_1", "function_name": "run_shell", "arguments": {"command": "ls"}},
                {"tool_call_id": "call_2", "function_name": "read_file", "arguments": {"path": "a"}},
            ],
            "observation": {
                "results": [
                    {"source_call_id": "call_1", "content": "a\nb"},
                    {"source_call_id": "call_2", "content": "hello"},
                ]
            },
            "metrics": {
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "cached_tokens": 0,
                "cost_usd": 0.001,
                "extra": {"reasoning_tokens": 7},
            },
            "llm_call_count": 1,
            "extra": {"seq": 1, "latency_s": 0.5},
        },
        {
            "step_id": 4,
            "source": "agent",
            "message": "Done.",
            "timestamp": at(2),
            "metrics": {"prompt_tokens": 150, "completion_tokens": 5, "cached_tokens": 100, "cost_usd": 0.0005},
            "llm_call_count": 1,
            "extra": {"seq": 2, "latency_s": 0.5},
        },
    ]
    assert t["final_metrics"] == {
        "total_prompt_tokens": 250,
        "total_completion_tokens": 25,
        "total_cached_tokens": 100,
        "total_cost_usd": 0.0015,
        "total_steps": 4,
        "extra": {
            "reasoning_tokens": 7,
            "cache_write_tokens": 0,
            "model_replies": 2,
            "unmetered_replies": 0,
            "budget_refusals": 0,
            "failed_requests": 0,
        },
    }
    assert "extra" not in t


def budget_refusal_transcript() -> list[Json]:
    """codeact's shape: no tools, the observation comes back as a user message; the second request is refused."""
    reply = {"role": "assistant", "content": '{"thought": "t", "code": "print(1)"}'}
    refusal = "cmb gateway: token budget exhausted: 130 of 100 tokens used. Finish with what you have."
    second = [SYSTEM, USER, reply, {"role": "user", "content": "1\n[Time] 250 s left"}]
    return [
        ISSUED,
        replied(1, [SYSTEM, USER], reply, usage(120, 10), 0.0002),
        entry(2, second, status=429, error=refusal, budget_exceeded=True),
    ]


def test_a_budget_refusal_is_a_system_step_with_the_message_the_agent_read():
    t = to_trajectory(budget_refusal_transcript(), KEY, "codeact", "0.1.0")
    assert t is not None
    assert [(s["source"], s["message"][:12]) for s in t["steps"]] == [
        ("system", "You are an a"),
        ("user", "Fit the EOS."),
        ("agent", '{"thought": '),
        ("user", "1\n[Time] 250"),
        ("system", "cmb gateway:"),
    ]
    assert t["steps"][4]["extra"] == {"seq": 2, "status": 429, "budget_exceeded": True}
    assert "metrics" not in t["steps"][4] and "tool_calls" not in t["steps"][2]
    final = t["final_metrics"]
    assert (final["total_prompt_tokens"], final["total_completion_tokens"], final["total_cost_usd"]) == (
        120,
        10,
        0.0002,
    )
    assert final["extra"]["budget_refusals"] == 1 and final["extra"]["failed_requests"] == 0


def infrastructure_transcript() -> list[Json]:
    """A retried 503, then a provider that fails every try: the agent reads a 502."""
    retried = {"at": at(1), "event": "infrastructure", "kind": "upstream-status", "detail": "HTTP 503: busy",
               "status": 503, "retry": 1}  # fmt: skip
    gave_up = {"at": at(2), "event": "infrastructure", "kind": "gave-up", "detail": "3 tries failed; last: x",
               "status": None, "retry": 0}  # fmt: skip
    reply = {"role": "assistant", "content": None, "tool_calls": [call("c1", "run_shell", '{"command": "ls"}')]}
    second = [SYSTEM, USER, reply, {"role": "tool", "tool_call_id": "c1", "content": "a"}]
    failed = "cmb gateway: the model provider failed after 3 tries (HTTP 503: busy)"
    return [
        ISSUED,
        retried,
        replied(1, [SYSTEM, USER], reply, usage(80, 8), 0.0001, retries=1),
        gave_up,
        entry(2, second, status=502, error=failed, retries=2),
    ]


def test_infrastructure_events_are_listed_and_a_failed_request_is_a_system_step():
    t = to_trajectory(infrastructure_transcript(), KEY, "react", "0.1.0")
    assert t is not None
    agent_step, failed = t["steps"][2], t["steps"][3]
    assert agent_step["message"] == "" and agent_step["observation"] == {
        "results": [{"source_call_id": "c1", "content": "a"}]
    }
    assert failed["source"] == "system" and failed["message"].startswith("cmb gateway: the model provider failed")
    assert failed["extra"] == {"seq": 2, "status": 502}
    assert [e["kind"] for e in t["extra"]["infrastructure_events"]] == ["upstream-status", "gave-up"]
    assert "event" not in t["extra"]["infrastructure_events"][0]
    assert t["final_metrics"]["extra"]["failed_requests"] == 1 and t["final_metrics"]["total_steps"] == 4


def streamed_transcript() -> list[Json]:
    """A stream cut short (its tool call's arguments half written) and unpriced: the reply is what arrived."""
    reply = {
        "role": "assistant",
        "content": "Running it.",
        "reasoning_content": "think",
        "tool_calls": [call("c9", "run_shell", '{"command": "pyth')],
    }
    cut = "upstream stream broke after 7 events: ClientPayloadError: cut"
    return [ISSUED, replied(1, [SYSTEM, USER], reply, usage(60, 4), None, stream=True, error=cut, stream_events=7)]


def test_a_streamed_reply_cut_short_and_unpriced():
    t = to_trajectory(streamed_transcript(), KEY, "react", "0.1.0")
    assert t is not None
    step = t["steps"][2]
    assert step["tool_calls"] == [
        {
            "tool_call_id": "c9",
            "function_name": "run_shell",
            "arguments": {},
            "extra": {"raw_arguments": '{"command": "pyth'},
        }
    ]
    assert step["metrics"] == {"prompt_tokens": 60, "completion_tokens": 4, "cached_tokens": 0}  # no price: no cost
    assert step["extra"] == {"seq": 1, "latency_s": 0.5, "stream": True, "error": streamed_transcript()[1]["error"]}
    assert t["final_metrics"]["total_cost_usd"] is None and t["final_metrics"]["total_prompt_tokens"] == 60


def messages_transcript() -> list[Json]:
    """Claude Code's dialect served natively: the request and the reply in Anthropic's shape."""
    first = {"model": MODEL, "system": "Be brief.", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 99}
    blocks = [
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        {"type": "text", "text": "Calling."},
        {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"cmd": "ls"}},
    ]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]}
    second = {**first, "messages": [*first["messages"], {"role": "assistant", "content": blocks}, result]}
    native = {"api": "messages", "upstream_api": "messages"}
    reply = {"type": "message", "role": "assistant", "content": blocks, "stop_reason": "tool_use"}
    done = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    return [
        ISSUED,
        entry(1, [], **native, request=first, status=200, response=reply, usage=usage(30, 9), cost_usd=0.01),
        entry(2, [], **native, request=second, status=200, response=done, usage=usage(50, 1), cost_usd=0.02),
    ]


def test_a_native_messages_transcript():
    t = to_trajectory(messages_transcript(), KEY, "claude-code", "0.1.0")
    assert t is not None
    assert [(s["source"], s["message"]) for s in t["steps"]] == [
        ("system", "Be brief."),
        ("user", "hi"),
        ("agent", "Calling."),
        ("agent", "ok"),
    ]
    step = t["steps"][2]
    assert step["reasoning_content"] == "hmm"
    assert step["tool_calls"] == [{"tool_call_id": "toolu_1", "function_name": "bash", "arguments": {"cmd": "ls"}}]
    assert step["observation"] == {"results": [{"source_call_id": "toolu_1", "content": "a.txt"}]}
    assert t["final_metrics"]["total_cost_usd"] == 0.03 and "tool_definitions" not in t["agent"]


def responses_transcript() -> list[Json]:
    """Codex CLI's dialect served natively: instructions, input items and output items."""
    first = {"model": MODEL, "instructions": "Be brief.", "input": [{"role": "user", "content": "hi"}]}
    call_item = {"type": "function_call", "call_id": "fc_1", "name": "shell", "arguments": '{"cmd": ["ls"]}'}
    output = {"type": "function_call_output", "call_id": "fc_1", "output": "a.txt"}
    second = {**first, "input": [*first["input"], call_item, output]}
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "list it"}]}
    native = {"api": "responses", "upstream_api": "responses"}
    reply = {"object": "response", "output": [reasoning, call_item]}
    text = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a.txt is there"}]}
    return [
        ISSUED,
        entry(1, [], **native, request=first, status=200, response=reply, usage=usage(40, 6), cost_usd=None),
        entry(2, [], **native, request=second, status=200, response={"output": [text]}, usage=usage(60, 4)),
    ]


def test_a_native_responses_transcript():
    t = to_trajectory(responses_transcript(), KEY, "codex", "0.1.0")
    assert t is not None
    assert [(s["source"], s["message"]) for s in t["steps"]] == [
        ("system", "Be brief."),
        ("user", "hi"),
        ("agent", ""),
        ("agent", "a.txt is there"),
    ]
    step = t["steps"][2]
    assert step["reasoning_content"] == "list it"
    assert step["tool_calls"] == [{"tool_call_id": "fc_1", "function_name": "shell", "arguments": {"cmd": ["ls"]}}]
    assert step["observation"] == {"results": [{"source_call_id": "fc_1", "content": "a.txt"}]}
    assert t["final_metrics"]["total_cost_usd"] is None  # unpriced replies: the cost is unknown, not $0


def test_a_trimmed_context_adds_only_what_follows_the_last_reply():
    reply = {"role": "assistant", "content": "one"}
    trimmed = [SYSTEM, reply, {"role": "user", "content": "next"}]  # the first user message dropped
    lines = [
        ISSUED,
        replied(1, [SYSTEM, USER], reply, usage(10, 1), 0.1),
        replied(2, trimmed, {"role": "assistant", "content": "two"}, usage(10, 1), 0.1),
        replied(3, trimmed, {"role": "assistant", "content": "two again"}, usage(10, 1), 0.1),  # the same request
    ]
    t = to_trajectory(lines, KEY, "react", "0.1.0")
    assert t is not None
    assert [s["message"] for s in t["steps"]] == [
        "You are an agent.",
        "Fit the EOS.",
        "one",
        "next",
        "two",
        "two again",
    ]
    assert t["final_metrics"]["total_cost_usd"] == 0.3


def test_no_model_request_no_trajectory():
    assert to_trajectory([ISSUED, {"at": at(1), "event": "token-revoked", "attempt": KEY}], KEY, "react", "1") is None
    assert to_trajectory([], KEY, "oracle", "1") is None


def test_harbor_accepts_every_trajectory(tmp_path: Path):
    builders = (
        tool_calls_transcript,
        budget_refusal_transcript,
        infrastructure_transcript,
        streamed_transcript,
        messages_transcript,
        responses_transcript,
    )
    paths = []
    for build in builders:
        path = tmp_path / f"{build.__name__}.atif.json"
        path.write_text(json.dumps(to_trajectory(build(), KEY, "react", "0.1.0")))
        paths.append(path)
    validate_atif(*paths)
