"""Anthropic Messages (/v1/messages), as Claude Code speaks it; translated from chat for chat-only upstreams."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from cmb.gateway._sse import encode
from cmb.gateway._tokens import TokenCounts
from cmb.gateway.dialects._base import (
    Assembler,
    Dialect,
    Json,
    StreamTranslator,
    bearer,
    count,
    flatten,
    new_id,
    register_dialect,
)
from cmb.gateway.dialects._chat import ChatToClientStream, reasoning_delta

_ERROR_TYPES = {
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


def _chat_call(block: Json) -> Json:
    """A tool_use block as a chat tool call."""
    fn = {"name": block.get("name"), "arguments": json.dumps(block.get("input", {}))}
    return {"id": block.get("id"), "type": "function", "function": fn}


def messages_to_chat(body: Json, model: str) -> Json:
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
                calls.append(_chat_call(block))
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
    return out


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


class MessagesAssembler(Assembler):
    """Messages events -> one message."""

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_json: dict[int, str] = {}
        self.usage: dict[str, Any] = {}

    def feed(self, event: Json) -> None:
        """Take one event."""
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            self.message = copy.deepcopy(event["message"])
            self.usage.update(self.message.get("usage") or {})
        elif kind == "content_block_start":
            self.blocks[int(event.get("index", 0))] = copy.deepcopy(event.get("content_block") or {})
        elif kind == "content_block_delta":
            i = int(event.get("index", 0))
            block = self.blocks.setdefault(i, {})
            delta = event.get("delta") or {}
            dt = delta.get("type")
            if dt == "text_delta":
                block["text"] = block.get("text", "") + str(delta.get("text", ""))
            elif dt == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
            elif dt == "signature_delta":
                block["signature"] = str(delta.get("signature", ""))
            elif dt == "input_json_delta":
                self.partial_json[i] = self.partial_json.get(i, "") + str(delta.get("partial_json", ""))
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            for k in ("stop_reason", "stop_sequence"):
                if k in delta:
                    self.message[k] = delta[k]
            self.usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})

    def result(self) -> Json:
        """The message."""
        content = []
        for i in sorted(self.blocks):
            block = dict(self.blocks[i])
            if block.get("type") in ("tool_use", "server_tool_use") and i in self.partial_json:
                try:
                    block["input"] = json.loads(self.partial_json[i] or "{}")
                except ValueError:
                    block["input"] = {"_unparsed": self.partial_json[i]}
            content.append(block)
        out = {**self.message, "content": content}
        if self.usage:
            out["usage"] = self.usage
        return out


class MessagesDialect(Dialect):
    """Anthropic Messages: its own error shape, and the provider key in x-api-key."""

    name = "messages"
    path = "/messages"

    def to_chat(self, body: Json, model: str) -> Json:
        """System, messages and content blocks as chat messages; client tools as chat tools."""
        return messages_to_chat(body, model)

    def from_chat(self, data: Json, client_body: Json) -> Json:
        """A chat.completion as a message."""
        return chat_to_messages(data, client_body)

    def reply_message(self, data: Json) -> Json:
        """A message's text, thinking and tool_use blocks as a chat assistant message."""
        texts, thinking, calls = [], [], []
        for block in data.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "thinking":
                thinking.append(str(block.get("thinking", "")))
            elif kind == "tool_use":
                calls.append(_chat_call(block))
        message: Json = {"role": "assistant", "content": "".join(texts) or None}
        if thinking:
            message["reasoning_content"] = "".join(thinking)
        if calls:
            message["tool_calls"] = calls
        return message

    def stream_from_chat(self, client_body: Json, model: str) -> StreamTranslator:
        """Chat chunks as the Messages event sequence."""
        return MessagesFromChatStream(client_body, model)

    def assembler(self) -> Assembler:
        """Events -> message."""
        return MessagesAssembler()

    def counts(self, usage: Any) -> TokenCounts | None:
        """From a Messages `usage` object, whose input_tokens exclude cache reads and writes."""
        if not isinstance(usage, dict):
            return None
        read = count(usage, "cache_read_input_tokens")
        write = count(usage, "cache_creation_input_tokens")
        return TokenCounts(
            input=count(usage, "input_tokens") + read + write,
            output=count(usage, "output_tokens"),
            cached=read,
            cache_write=write,
        )

    def error_body(self, status: int, message: str, code: str) -> Json:
        """Anthropic's error shape: the type follows the status."""
        return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}

    def stream_error(self, message: str) -> bytes:
        """An error event."""
        return encode({"type": "error", "error": {"type": "api_error", "message": message}}, "error")

    def client_token(self, headers: Mapping[str, str]) -> str:
        """x-api-key (the Anthropic SDK), else a bearer token (an auth token in its place)."""
        return headers.get("x-api-key", "").strip() or bearer(headers)

    def auth_headers(self, key: str) -> dict[str, str]:
        """x-api-key."""
        return {"x-api-key": key}


MESSAGES = register_dialect(MessagesDialect())
