"""An attempt's gateway transcript as a trajectory in Harbor's Agent Trajectory Interchange Format (ATIF).

`to_trajectory` is pure: the transcript's JSON lines in, a Trajectory as plain JSON out (schema ATIF-v1.8, the one
`harbor.models.trajectories.Trajectory` of harbor 0.26 validates). Each model request adds the messages that are new
since the request before it: system and user messages become system and user steps, and tool results become the
observation of the agent step whose tool call they answer. Each reply is an agent step: its text, its reasoning, its
tool calls, and the tokens and price the gateway metered for it. A request the gateway refused for the budget, or
one the provider failed, is a system step carrying the error the agent read. Upstream faults the gateway retried
never reached the agent, so they are no steps: the root `extra.infrastructure_events` lists them. The assistant
messages inside a request are earlier replies sent back as context, and each is a step already.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from cmb.gateway.dialects import CHAT, DIALECTS, upstream_error_message
from cmb.gateway.dialects._base import flatten
from cmb.gateway.dialects._chat import reasoning_delta

Json = dict[str, Any]

SCHEMA_VERSION = "ATIF-v1.8"
NOTES = (
    "Built by cmb from the gateway transcript: tokens and cost are the gateway's metering. The tool calls of the "
    "last reply have no observation when the agent sent no request after them."
)


def to_trajectory(
    lines: Iterable[Json], session_id: str, agent_name: str, agent_version: str, model_name: str | None = None
) -> Json | None:
    """The ATIF Trajectory of one attempt's transcript lines; None when the attempt made no model request."""
    steps: list[Json] = []
    calls: dict[str, Json] = {}  # tool_call_id -> the agent step that made the call
    previous: list[Json] = []  # the messages of the request before
    infra: list[Json] = []
    tools: list[Any] | None = None
    for line in lines:
        if line.get("event") == "token-issued":
            model_name = model_name or line.get("model")
        if line.get("event") == "infrastructure":
            infra.append({k: v for k, v in line.items() if k != "event"})
        if "seq" not in line or not isinstance(line.get("request"), dict):
            continue
        chat = _chat_request(line)
        messages = [m for m in chat.get("messages") or [] if isinstance(m, dict)]
        tools = tools or chat.get("tools") or None
        for message in _new_messages(previous, messages):
            _add_message(steps, calls, message, line)
        previous = messages
        steps.append(_reply_step(line, calls, model_name))
    if not steps:
        return None
    for i, step in enumerate(steps, 1):
        step["step_id"] = i
    agent: Json = {"name": agent_name, "version": agent_version}
    if model_name:
        agent["model_name"] = model_name
    if tools:
        agent["tool_definitions"] = tools
    out: Json = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "agent": agent,
        "steps": steps,
        "notes": NOTES,
        "final_metrics": _final_metrics(steps),
    }
    if infra:
        out["extra"] = {"infrastructure_events": infra}
    return out


def _chat_request(line: Json) -> Json:
    """The request in the gateway's internal (chat) form."""
    dialect = DIALECTS.get(str(line.get("api")), CHAT)
    try:
        return dialect.to_chat(line["request"], str(line.get("model") or ""))
    except Exception:  # noqa: BLE001 - a request the dialect cannot read still had its reply
        return {}


def _new_messages(previous: list[Json], messages: list[Json]) -> list[Json]:
    """The messages of a request not sent before.

    Those after the previous request's; when the agent rewrote its context (trimmed it, or sent only new input),
    those after the last assistant message.
    """
    if messages[: len(previous)] == previous:
        return messages[len(previous) :]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1 :]


def _text(content: Any) -> str:
    if content is None:
        return ""
    text = flatten(content)
    return text if isinstance(text, str) else json.dumps(text)


def _add_message(steps: list[Json], calls: dict[str, Json], message: Json, line: Json) -> None:
    role = str(message.get("role", "user"))
    text = _text(message.get("content"))
    if role == "assistant":
        return
    if role == "tool":
        call_id = str(message.get("tool_call_id") or "")
        step = calls.get(call_id)
        if step is not None:
            step.setdefault("observation", {"results": []})["results"].append(
                {"source_call_id": call_id, "content": text}
            )
            return
        steps.append(_step("user", text, line, {"role": "tool", "tool_call_id": call_id}))
        return
    source = "system" if role in ("system", "developer") else "user"
    steps.append(_step(source, text, line, None if role in ("system", "user") else {"role": role}))


def _step(source: str, message: str, line: Json, extra: Json | None = None) -> Json:
    step: Json = {"step_id": 0, "source": source, "message": message}
    if isinstance(line.get("at"), str):
        step["timestamp"] = line["at"]
    if extra:
        step["extra"] = extra
    return step


def _reply_step(line: Json, calls: dict[str, Json], model_name: str | None) -> Json:
    """The agent step of a reply, or the system step of a refused or failed request."""
    seq = line.get("seq")
    response = line.get("response")
    if line.get("status") != 200 or not isinstance(response, dict):
        error = line.get("error") or upstream_error_message(response, "no reply")
        extra: Json = {"seq": seq, "status": line.get("status")}
        if line.get("budget_exceeded"):
            extra["budget_exceeded"] = True
        return _step("system", str(error), line, extra)
    message = DIALECTS.get(str(line.get("upstream_api")), CHAT).reply_message(response)
    step = _step("agent", _text(message.get("content")), line)
    if line.get("model") and line.get("model") != model_name:
        step["model_name"] = line["model"]
    reasoning = reasoning_delta(message)
    if reasoning:
        step["reasoning_content"] = reasoning
    tool_calls = [_tool_call(c, seq, i) for i, c in enumerate(message.get("tool_calls") or []) if isinstance(c, dict)]
    if tool_calls:
        step["tool_calls"] = tool_calls
        calls.update({c["tool_call_id"]: step for c in tool_calls})
    usage = line.get("usage")
    if isinstance(usage, dict):
        metrics: Json = {
            "prompt_tokens": int(usage.get("input_tokens", 0)),
            "completion_tokens": int(usage.get("output_tokens", 0)),
            "cached_tokens": int(usage.get("cached_tokens", 0)),
        }
        if line.get("cost_usd") is not None:
            metrics["cost_usd"] = float(line["cost_usd"])
        more = {k: int(usage[k]) for k in ("reasoning_tokens", "cache_write_tokens") if usage.get(k)}
        if more:
            metrics["extra"] = more
        step["metrics"] = metrics
    step["llm_call_count"] = 1
    extra = {"seq": seq, "latency_s": line.get("latency_s")}
    if line.get("stream"):
        extra["stream"] = True
    if line.get("error"):
        extra["error"] = line["error"]  # a stream cut short: the reply is what arrived
    step["extra"] = extra
    return step


def _tool_call(call: Json, seq: Any, index: int) -> Json:
    fn = call.get("function") or {}
    raw = fn.get("arguments")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        arguments = None
    out: Json = {
        "tool_call_id": str(call.get("id") or f"call_{seq}_{index}"),
        "function_name": str(fn.get("name") or ""),
        "arguments": arguments if isinstance(arguments, dict) else {},
    }
    if not isinstance(arguments, dict) and raw not in (None, ""):
        out["extra"] = {"raw_arguments": raw}  # not a JSON object: kept as the model wrote it
    return out


def _final_metrics(steps: list[Json]) -> Json:
    """Totals over the replies; the cost only when every reply was metered and priced (else unknown, never $0)."""
    replies = [s for s in steps if s["source"] == "agent"]
    metered = [s["metrics"] for s in replies if "metrics" in s]
    priced = bool(metered) and len(metered) == len(replies) and all("cost_usd" in m for m in metered)
    errors = [s["extra"] for s in steps if s["source"] == "system" and "status" in s.get("extra", {})]
    refusals = sum(1 for e in errors if e.get("budget_exceeded"))
    return {
        "total_prompt_tokens": sum(m["prompt_tokens"] for m in metered),
        "total_completion_tokens": sum(m["completion_tokens"] for m in metered),
        "total_cached_tokens": sum(m["cached_tokens"] for m in metered),
        "total_cost_usd": round(sum(m["cost_usd"] for m in metered), 10) if priced else None,
        "total_steps": len(steps),
        "extra": {
            "reasoning_tokens": sum(m.get("extra", {}).get("reasoning_tokens", 0) for m in metered),
            "cache_write_tokens": sum(m.get("extra", {}).get("cache_write_tokens", 0) for m in metered),
            "model_replies": len(replies),
            "unmetered_replies": len(replies) - len(metered),
            "budget_refusals": refusals,
            "failed_requests": len(errors) - refusals,
        },
    }
