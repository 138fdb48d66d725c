"""Routes from the API a client speaks to the API an upstream serves: pass-through or translation.

Translations go through chat completions, the one API every OpenAI-compatible server (vLLM, llama.cpp, ...)
speaks: Responses -> chat (Codex CLI on a local model) and Messages -> chat (Claude Code on a local model).
Streams are translated event by event into the sequences the real APIs send.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from cmb.gateway._assemble import ASSEMBLERS, Assembler, ChatAssembler, reasoning_delta
from cmb.gateway._config import UpstreamConfig
from cmb.gateway._sse import SseEvent, encode

Json = dict[str, Any]

_TEXT_PARTS = ("text", "input_text", "output_text")


def new_id(prefix: str) -> str:
    """An id in the style of the API (resp_..., msg_..., fc_..., toolu_...)."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


# -- errors ----------------------------------------------------------------------------------------------------------

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


def error_body(api: str, status: int, message: str, code: str) -> Json:
    """An error in the shape the client's API uses, so its SDK shows the message to the agent."""
    if api == "messages":
        return {"type": "error", "error": {"type": _ANTHROPIC_ERROR_TYPES.get(status, "api_error"), "message": message}}
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": code if status == 429 else kind, "code": code, "param": None}}


def upstream_error_message(data: Any, text: str) -> str:
    """The message of an upstream error body, whatever its shape."""
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
        if data.get("message"):
            return str(data["message"])
    return text[:2000]


# -- chat requests -----------------------------------------------------------------------------------------------------


def flatten(content: Any) -> Any:
    """List-of-parts content as one string (text parts joined; other parts named, since they cannot be sent)."""
    if not isinstance(content, list):
        return content
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict):
            texts.append(f"[{part.get('type', 'part')} omitted]")
    return "\n".join(texts)


def prepare_chat(body: Json, upstream: UpstreamConfig, model: str) -> Json:
    """A chat request as this upstream takes it: model, output-limit name, usage in streams, flat content."""
    out = {k: v for k, v in body.items() if k not in upstream.drop_fields}
    out["model"] = model
    newer, older = out.pop("max_completion_tokens", None), out.pop("max_tokens", None)
    limit = newer if newer is not None else older
    if limit is not None:
        out[upstream.max_tokens_field] = limit
    if out.get("stream"):
        out["stream_options"] = {**(out.get("stream_options") or {}), "include_usage": True}
    fmt = out.get("response_format")
    if upstream.json_schema_style == "llama-cpp-python" and isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        out["response_format"] = {"type": "json_object", "schema": (fmt.get("json_schema") or {}).get("schema", {})}
    if upstream.flatten_content:
        out["messages"] = [
            {**m, "content": flatten(m.get("content"))} if isinstance(m, dict) else m for m in out.get("messages", [])
        ]
    return out


# -- streams -----------------------------------------------------------------------------------------------------------


class StreamTranslator:
    """Turns upstream stream events into client stream frames, and assembles the upstream reply."""

    def __init__(self, upstream_api: str) -> None:
        self.assembler: Assembler = ASSEMBLERS[upstream_api]()

    def start(self) -> list[bytes]:
        """Frames to send before the first upstream event."""
        return []

    def feed(self, event: SseEvent) -> list[bytes]:
        """Frames for one upstream event."""
        raise NotImplementedError

    def finish(self) -> list[bytes]:
        """Frames after the upstream stream ended."""
        return []


class PassThroughStream(StreamTranslator):
    """The same API on both sides: forward every event; for chat, hide the usage chunk the client did not ask for."""

    def __init__(self, api: str, client_wants_usage: bool) -> None:
        super().__init__(api)
        self.api = api
        self.client_wants_usage = client_wants_usage

    def feed(self, event: SseEvent) -> list[bytes]:
        """Forward, recording on the way."""
        obj = event.json()
        if obj is not None:
            self.assembler.feed(obj)
            if self.api == "chat" and not self.client_wants_usage and obj.get("usage") and not obj.get("choices"):
                return []
        return [encode(event.data, event.event)]


class ChatToClientStream(StreamTranslator):
    """Base of the translations fed by chat chunks."""

    def __init__(self, client_body: Json) -> None:
        super().__init__("chat")
        self.client_body = client_body
        self.chat: ChatAssembler = self.assembler  # type: ignore[assignment]

    def feed(self, event: SseEvent) -> list[bytes]:
        """Decode a chat chunk and translate its deltas."""
        obj = event.json()
        if obj is None:
            return []
        self.chat.feed(obj)
        frames: list[bytes] = []
        for choice in obj.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0 and isinstance(choice.get("delta"), dict):
                frames += self.delta(choice["delta"])
        return frames

    def delta(self, delta: Json) -> list[bytes]:
        """Frames for one chat delta."""
        raise NotImplementedError


# -- Responses <- chat -------------------------------------------------------------------------------------------------


def responses_to_chat(body: Json, upstream: UpstreamConfig, model: str) -> Json:
    """A Responses request as a chat request."""
    messages: list[Json] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": str(body["instructions"])})
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    for item in items or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = {"developer": "system"}.get(str(item.get("role")), str(item.get("role", "user")))
            content = item.get("content")
            if isinstance(content, list):
                parts = _responses_parts_to_chat(content)
                # text-only content as one string: every chat server takes that
                content = flatten(parts) if all(p["type"] == "text" for p in parts) else parts
            if (
                role == "assistant"
                and messages
                and messages[-1]["role"] == "assistant"
                and "content" not in (messages[-1])
            ):
                messages[-1]["content"] = flatten(content)
                continue
            messages.append({"role": role, "content": content})
        elif kind in ("function_call", "custom_tool_call"):
            args = item.get("arguments", "") if kind == "function_call" else json.dumps({"input": item.get("input")})
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": args},
            }
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "tool_calls": [call]})
        elif kind in ("function_call_output", "custom_tool_call_output"):
            messages.append(
                {"role": "tool", "tool_call_id": item.get("call_id"), "content": flatten(item.get("output"))}
            )
        # reasoning items and hosted-tool items have no chat equivalent: dropped
    for m in messages:
        if m["role"] == "assistant" and "content" not in m:
            m["content"] = None
    out: Json = {"model": model, "messages": messages}
    tools = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "function":
            fn = {k: tool[k] for k in ("name", "description", "parameters", "strict") if k in tool}
            tools.append({"type": "function", "function": fn})
        elif tool.get("type") == "custom":
            params = {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
            tools.append(
                {
                    "type": "function",
                    "function": {
                        "name": tool.get("name"),
                        "description": tool.get("description", ""),
                        "parameters": params,
                    },
                }
            )
    if tools:
        out["tools"] = tools
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("name"):
            out["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
        elif isinstance(choice, str):
            out["tool_choice"] = choice
        if "parallel_tool_calls" in body:
            out["parallel_tool_calls"] = body["parallel_tool_calls"]
    for src, dst in (("temperature", "temperature"), ("top_p", "top_p"), ("max_output_tokens", "max_tokens")):
        if body.get(src) is not None:
            out[dst] = body[src]
    effort = (body.get("reasoning") or {}).get("effort") if isinstance(body.get("reasoning"), dict) else None
    if effort:
        out["reasoning_effort"] = effort
    fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = {k: fmt[k] for k in ("name", "schema", "strict") if k in fmt}
        out["response_format"] = {"type": "json_schema", "json_schema": spec}
    elif isinstance(fmt, dict) and fmt.get("type") == "json_object":
        out["response_format"] = {"type": "json_object"}
    if body.get("stream"):
        out["stream"] = True
    return prepare_chat(out, upstream, model)


def _responses_parts_to_chat(parts: list[Any]) -> list[Json]:
    out: list[Json] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") in _TEXT_PARTS:
            out.append({"type": "text", "text": str(part.get("text", ""))})
        elif part.get("type") == "input_image" and part.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
    return out


def _custom_tool_names(body: Json) -> set[str]:
    return {str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "custom"}


def _responses_usage(usage: Any) -> Json | None:
    if not isinstance(usage, dict):
        return None
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens", 0) or 0
    inp, outp = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": int(cached)},
        "output_tokens": outp,
        "output_tokens_details": {"reasoning_tokens": int(reasoning)},
        "total_tokens": inp + outp,
    }


def _response_shell(resp_id: str, created: int, model: str, body: Json, status: str) -> Json:
    return {
        "id": resp_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "model": model,
        "output": [],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "usage": None,
    }


def _tool_item(call: Json, custom: set[str], item_id: str | None = None) -> Json:
    fn = call.get("function") or {}
    name, args = str(fn.get("name", "")), str(fn.get("arguments", ""))
    call_id = call.get("id") or new_id("call")
    if name in custom:
        try:
            value = json.loads(args or "{}").get("input", "")
        except (ValueError, AttributeError):
            value = args
        return {
            "type": "custom_tool_call",
            "id": item_id or new_id("ctc"),
            "call_id": call_id,
            "name": name,
            "input": value,
            "status": "completed",
        }
    return {
        "type": "function_call",
        "id": item_id or new_id("fc"),
        "call_id": call_id,
        "name": name,
        "arguments": args,
        "status": "completed",
    }


def chat_to_responses(data: Json, client_body: Json) -> Json:
    """A chat.completion as a Responses response."""
    choice = (data.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    created = int(data.get("created") or time.time())
    finish = choice.get("finish_reason")
    resp = _response_shell(
        new_id("resp"),
        created,
        str(data.get("model", "")),
        client_body,
        "incomplete" if finish == "length" else "completed",
    )
    if finish == "length":
        resp["incomplete_details"] = {"reason": "max_output_tokens"}
    output: list[Json] = []
    reasoning = reasoning_delta(message)
    if reasoning:
        output.append(
            {"type": "reasoning", "id": new_id("rs"), "summary": [{"type": "summary_text", "text": reasoning}]}
        )
    if message.get("content"):
        output.append(_message_item(new_id("msg"), flatten(message["content"])))
    custom = _custom_tool_names(client_body)
    output += [_tool_item(c, custom) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    resp["output"] = output
    resp["usage"] = _responses_usage(data.get("usage"))
    return resp


def _message_item(item_id: str, text: str, status: str = "completed") -> Json:
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


class ResponsesFromChatStream(ChatToClientStream):
    """Chat chunks -> the Responses event sequence (created, in_progress, items added/delta/done, completed)."""

    def __init__(self, client_body: Json, model: str) -> None:
        super().__init__(client_body)
        self.seq = 0
        self.resp = _response_shell(new_id("resp"), int(time.time()), model, client_body, "in_progress")
        self.output: list[Json] = []
        self.open_kind: str | None = None  # "reasoning" | "message" while one is open
        self.open_index = -1
        self.text: list[str] = []
        self.tools: dict[int, tuple[int, Json]] = {}  # chat tool index -> (output index, item)
        self.custom = _custom_tool_names(client_body)

    def _ev(self, kind: str, **fields: Any) -> bytes:
        frame = encode({"type": kind, "sequence_number": self.seq, **fields}, kind)
        self.seq += 1
        return frame

    def start(self) -> list[bytes]:
        """response.created and response.in_progress."""
        return [
            self._ev("response.created", response=dict(self.resp)),
            self._ev("response.in_progress", response=dict(self.resp)),
        ]

    def _close_open(self) -> list[bytes]:
        frames: list[bytes] = []
        i, text = self.open_index, "".join(self.text)
        if self.open_kind == "message":
            item = self.output[i]
            part = {"type": "output_text", "text": text, "annotations": []}
            frames.append(
                self._ev("response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text)
            )
            frames.append(
                self._ev("response.content_part.done", item_id=item["id"], output_index=i, content_index=0, part=part)
            )
            self.output[i] = _message_item(item["id"], text)
            frames.append(self._ev("response.output_item.done", output_index=i, item=self.output[i]))
        elif self.open_kind == "reasoning":
            item = self.output[i]
            part = {"type": "summary_text", "text": text}
            frames.append(
                self._ev(
                    "response.reasoning_summary_text.done",
                    item_id=item["id"],
                    output_index=i,
                    summary_index=0,
                    text=text,
                )
            )
            frames.append(
                self._ev(
                    "response.reasoning_summary_part.done",
                    item_id=item["id"],
                    output_index=i,
                    summary_index=0,
                    part=part,
                )
            )
            self.output[i] = {"type": "reasoning", "id": item["id"], "summary": [part]}
            frames.append(self._ev("response.output_item.done", output_index=i, item=self.output[i]))
        self.open_kind, self.text = None, []
        return frames

    def _open(self, kind: str) -> list[bytes]:
        frames = self._close_open()
        self.open_kind, self.open_index = kind, len(self.output)
        i = self.open_index
        if kind == "message":
            item = {"type": "message", "id": new_id("msg"), "status": "in_progress", "role": "assistant", "content": []}
            self.output.append(item)
            frames.append(self._ev("response.output_item.added", output_index=i, item=item))
            frames.append(
                self._ev(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=i,
                    content_index=0,
                    part={"type": "output_text", "text": "", "annotations": []},
                )
            )
        else:
            item = {"type": "reasoning", "id": new_id("rs"), "summary": []}
            self.output.append(item)
            frames.append(self._ev("response.output_item.added", output_index=i, item=item))
            frames.append(
                self._ev(
                    "response.reasoning_summary_part.added",
                    item_id=item["id"],
                    output_index=i,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                )
            )
        return frames

    def delta(self, delta: Json) -> list[bytes]:
        """Reasoning, text and tool-call deltas as Responses events."""
        frames: list[bytes] = []
        reasoning = reasoning_delta(delta)
        if reasoning:
            if self.open_kind != "reasoning":
                frames += self._open("reasoning")
            self.text.append(reasoning)
            frames.append(
                self._ev(
                    "response.reasoning_summary_text.delta",
                    item_id=self.output[self.open_index]["id"],
                    output_index=self.open_index,
                    summary_index=0,
                    delta=reasoning,
                )
            )
        content = delta.get("content")
        if isinstance(content, str) and content:
            if self.open_kind != "message":
                frames += self._open("message")
            self.text.append(content)
            frames.append(
                self._ev(
                    "response.output_text.delta",
                    item_id=self.output[self.open_index]["id"],
                    output_index=self.open_index,
                    content_index=0,
                    delta=content,
                )
            )
        for tc in delta.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            frames += self._close_open()
            idx = int(tc.get("index", 0))
            fn = tc.get("function") or {}
            if idx not in self.tools:
                name = str(fn.get("name", ""))
                kind = "custom_tool_call" if name in self.custom else "function_call"
                item = {
                    "type": kind,
                    "id": new_id("ctc" if kind == "custom_tool_call" else "fc"),
                    "call_id": tc.get("id") or new_id("call"),
                    "name": name,
                    "status": "in_progress",
                    **({"input": ""} if kind == "custom_tool_call" else {"arguments": ""}),
                }
                self.tools[idx] = (len(self.output), item)
                self.output.append(item)
                frames.append(self._ev("response.output_item.added", output_index=self.tools[idx][0], item=dict(item)))
            out_i, item = self.tools[idx]
            args = fn.get("arguments")
            if isinstance(args, str) and args and item["type"] == "function_call":
                item["arguments"] += args
                frames.append(
                    self._ev(
                        "response.function_call_arguments.delta", item_id=item["id"], output_index=out_i, delta=args
                    )
                )
        return frames

    def finish(self) -> list[bytes]:
        """Close every item, then response.completed (or response.incomplete at the output limit)."""
        frames = self._close_open()
        chat = self.chat.result()
        for idx, (out_i, item) in sorted(self.tools.items()):
            call = self.chat.tool_calls.get(idx, {"function": {"name": item["name"], "arguments": ""}})
            done = _tool_item(call, self.custom, item["id"])
            done["call_id"] = item["call_id"]
            if done["type"] == "function_call":
                frames.append(
                    self._ev(
                        "response.function_call_arguments.done",
                        item_id=item["id"],
                        output_index=out_i,
                        arguments=done["arguments"],
                    )
                )
            else:
                frames.append(
                    self._ev(
                        "response.custom_tool_call_input.done",
                        item_id=item["id"],
                        output_index=out_i,
                        input=done["input"],
                    )
                )
            self.output[out_i] = done
            frames.append(self._ev("response.output_item.done", output_index=out_i, item=done))
        finish = chat["choices"][0].get("finish_reason")
        resp = {**self.resp, "output": self.output, "usage": _responses_usage(chat.get("usage"))}
        if finish == "length":
            resp.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
            frames.append(self._ev("response.incomplete", response=resp))
        else:
            resp["status"] = "completed"
            frames.append(self._ev("response.completed", response=resp))
        return frames


# -- Messages <- chat --------------------------------------------------------------------------------------------------


def messages_to_chat(body: Json, upstream: UpstreamConfig, model: str) -> Json:
    """An Anthropic Messages request as a chat request."""
    messages: list[Json] = []
    system = body.get("system")
    if system:
        messages.append({"role": "system", "content": flatten(system) if isinstance(system, list) else str(system)})
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        role, content = str(msg.get("role", "user")), msg.get("content")
        if isinstance(content, str):
            messages.append({"role": role, "content": content})
            continue
        parts: list[Json] = []
        calls: list[Json] = []
        for block in content or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append({"type": "text", "text": str(block.get("text", ""))})
            elif kind == "image" and isinstance(block.get("source"), dict):
                src = block["source"]
                url = src.get("url") or f"data:{src.get('media_type')};base64,{src.get('data', '')}"
                parts.append({"type": "image_url", "image_url": {"url": url}})
            elif kind == "tool_use":
                calls.append(
                    {
                        "id": block.get("id"),
                        "type": "function",
                        "function": {"name": block.get("name"), "arguments": json.dumps(block.get("input", {}))},
                    }
                )
            elif kind == "tool_result":
                result = flatten(block.get("content")) if block.get("content") is not None else ""
                if block.get("is_error"):
                    result = f"[error] {result}"
                messages.append({"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": result})
            # thinking and redacted_thinking blocks are the upstream's own, not sendable to another server
        if role == "assistant":
            if parts or calls:
                m: Json = {"role": "assistant", "content": flatten(parts) if parts else None}
                if calls:
                    m["tool_calls"] = calls
                messages.append(m)
        elif parts:
            texts_only = all(p["type"] == "text" for p in parts)
            messages.append({"role": role, "content": flatten(parts) if texts_only else parts})
    out: Json = {"model": model, "messages": messages}
    tools = [
        {
            "type": "function",
            "function": {
                "name": t.get("name"),
                "description": t.get("description", ""),
                "parameters": t.get("input_schema") or {"type": "object"},
            },
        }
        for t in body.get("tools") or []
        if isinstance(t, dict) and "input_schema" in t  # server tools (web search ...) have no chat equivalent
    ]
    if tools:
        out["tools"] = tools
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            kind = choice.get("type")
            if kind == "tool" and choice.get("name"):
                out["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
            elif kind in ("auto", "none"):
                out["tool_choice"] = kind
            elif kind == "any":
                out["tool_choice"] = "required"
            if choice.get("disable_parallel_tool_use"):
                out["parallel_tool_calls"] = False
    for src, dst in (
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("stop_sequences", "stop"),
    ):
        if body.get(src) is not None:
            out[dst] = body[src]
    if body.get("stream"):
        out["stream"] = True
    return prepare_chat(out, upstream, model)


_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use"}


def _messages_usage(usage: Any) -> Json:
    if not isinstance(usage, dict):
        return {"input_tokens": 0, "output_tokens": 0}
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0)
    return {
        "input_tokens": max(0, int(usage.get("prompt_tokens") or 0) - cached),
        "output_tokens": int(usage.get("completion_tokens") or 0),
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
    }


def _tool_input(arguments: str) -> Any:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {"_unparsed_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def chat_to_messages(data: Json, client_body: Json) -> Json:
    """A chat.completion as an Anthropic message."""
    choice = (data.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    content: list[Json] = []
    reasoning = reasoning_delta(message)
    if reasoning:
        content.append({"type": "thinking", "thinking": reasoning, "signature": ""})
    if message.get("content"):
        content.append({"type": "text", "text": flatten(message["content"])})
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        content.append(
            {
                "type": "tool_use",
                "id": call.get("id") or new_id("toolu"),
                "name": fn.get("name", ""),
                "input": _tool_input(str(fn.get("arguments", ""))),
            }
        )
    return {
        "id": new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": data.get("model", client_body.get("model", "")),
        "content": content,
        "stop_reason": _STOP_REASONS.get(str(choice.get("finish_reason")), "end_turn"),
        "stop_sequence": None,
        "usage": _messages_usage(data.get("usage")),
    }


class MessagesFromChatStream(ChatToClientStream):
    """Chat chunks -> message_start, ping, content blocks (start/delta/stop), message_delta, message_stop."""

    def __init__(self, client_body: Json, model: str) -> None:
        super().__init__(client_body)
        self.model = model
        self.index = -1
        self.open_kind: str | None = None  # thinking | text | tool
        self.tool_index: int | None = None

    def start(self) -> list[bytes]:
        """message_start (usage is only known at the end: message_delta carries it) and a ping."""
        message: Json = {
            "id": new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return [
            encode({"type": "message_start", "message": message}, "message_start"),
            encode({"type": "ping"}, "ping"),
        ]

    def _stop(self) -> list[bytes]:
        if self.open_kind is None:
            return []
        frames = []
        if self.open_kind == "thinking":
            delta = {"type": "signature_delta", "signature": ""}
            frames.append(
                encode({"type": "content_block_delta", "index": self.index, "delta": delta}, "content_block_delta")
            )
        frames.append(encode({"type": "content_block_stop", "index": self.index}, "content_block_stop"))
        self.open_kind, self.tool_index = None, None
        return frames

    def _start(self, kind: str, block: Json) -> list[bytes]:
        frames = self._stop()
        self.index += 1
        self.open_kind = kind
        frames.append(
            encode({"type": "content_block_start", "index": self.index, "content_block": block}, "content_block_start")
        )
        return frames

    def _delta(self, delta: Json) -> bytes:
        return encode({"type": "content_block_delta", "index": self.index, "delta": delta}, "content_block_delta")

    def delta(self, delta: Json) -> list[bytes]:
        """Thinking, text and tool-use blocks."""
        frames: list[bytes] = []
        reasoning = reasoning_delta(delta)
        if reasoning:
            if self.open_kind != "thinking":
                frames += self._start("thinking", {"type": "thinking", "thinking": "", "signature": ""})
            frames.append(self._delta({"type": "thinking_delta", "thinking": reasoning}))
        content = delta.get("content")
        if isinstance(content, str) and content:
            if self.open_kind != "text":
                frames += self._start("text", {"type": "text", "text": ""})
            frames.append(self._delta({"type": "text_delta", "text": content}))
        for tc in delta.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            idx = int(tc.get("index", 0))
            fn = tc.get("function") or {}
            if self.open_kind != "tool" or self.tool_index != idx:
                block = {
                    "type": "tool_use",
                    "id": tc.get("id") or new_id("toolu"),
                    "name": fn.get("name", ""),
                    "input": {},
                }
                frames += self._start("tool", block)
                self.tool_index = idx
            if fn.get("arguments"):
                frames.append(self._delta({"type": "input_json_delta", "partial_json": fn["arguments"]}))
        return frames

    def finish(self) -> list[bytes]:
        """Close the open block, then message_delta with the stop reason and usage, then message_stop."""
        frames = self._stop()
        chat = self.chat.result()
        stop = _STOP_REASONS.get(str(chat["choices"][0].get("finish_reason")), "end_turn")
        usage = _messages_usage(chat.get("usage"))
        frames.append(
            encode(
                {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
                "message_delta",
            )
        )
        frames.append(encode({"type": "message_stop"}, "message_stop"))
        return frames


# -- routes ------------------------------------------------------------------------------------------------------------


class Route:
    """How one client API reaches one upstream API."""

    def __init__(
        self,
        client_api: str,
        upstream_api: str,
        request: Callable[[Json, UpstreamConfig, str], Json],
        response: Callable[[Json, Json], Json],
        stream: Callable[[Json, str], StreamTranslator],
    ) -> None:
        self.client_api = client_api
        self.upstream_api = upstream_api
        self.request = request
        self.response = response
        self.stream = stream

    @property
    def translated(self) -> bool:
        """True when the two APIs differ."""
        return self.client_api != self.upstream_api


def _with_model(body: Json, upstream: UpstreamConfig, model: str) -> Json:
    return {**body, "model": model}


def _wants_usage(body: Json) -> bool:
    return bool((body.get("stream_options") or {}).get("include_usage"))


ROUTES: dict[tuple[str, str], Route] = {
    ("chat", "chat"): Route(
        "chat", "chat", prepare_chat, lambda data, _b: data, lambda b, _m: PassThroughStream("chat", _wants_usage(b))
    ),
    ("responses", "responses"): Route(
        "responses",
        "responses",
        _with_model,
        lambda data, _b: data,
        lambda _b, _m: PassThroughStream("responses", True),
    ),
    ("messages", "messages"): Route(
        "messages", "messages", _with_model, lambda data, _b: data, lambda _b, _m: PassThroughStream("messages", True)
    ),
    ("responses", "chat"): Route("responses", "chat", responses_to_chat, chat_to_responses, ResponsesFromChatStream),
    ("messages", "chat"): Route("messages", "chat", messages_to_chat, chat_to_messages, MessagesFromChatStream),
}


def route_for(client_api: str, upstream: UpstreamConfig) -> Route | None:
    """The native route when the upstream speaks the client's API, else a translation through chat."""
    if client_api in upstream.apis:
        return ROUTES[(client_api, client_api)]
    if "chat" in upstream.apis:
        return ROUTES.get((client_api, "chat"))
    return None
