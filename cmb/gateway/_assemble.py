"""Rebuild a whole reply from a stream, per API: for the transcript, the usage, and translation."""

from __future__ import annotations

import copy
from typing import Any

from cmb.gateway._usage import COUNTERS, TokenCounts


class Assembler:
    """Feeds on upstream stream events (decoded JSON); `result()` is the equivalent non-streamed reply."""

    api = ""

    def feed(self, event: dict[str, Any]) -> None:
        """Take one event."""
        raise NotImplementedError

    def result(self) -> dict[str, Any]:
        """The reply as the non-streamed API would have returned it."""
        raise NotImplementedError

    def counts(self) -> TokenCounts | None:
        """Tokens, when the stream reported usage."""
        usage = self.result().get("usage")
        return COUNTERS[self.api](usage) if usage else None


class ChatAssembler(Assembler):
    """OpenAI chat-completion chunks -> one chat.completion."""

    api = "chat"

    def __init__(self) -> None:
        self.id = ""
        self.model = ""
        self.created = 0
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None

    def feed(self, event: dict[str, Any]) -> None:
        """Take one chunk."""
        self.id = self.id or str(event.get("id") or "")
        self.model = self.model or str(event.get("model") or "")
        self.created = self.created or int(event.get("created") or 0)
        if isinstance(event.get("usage"), dict):
            self.usage = event["usage"]
        for choice in event.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
            if not isinstance(delta, dict):
                continue
            if isinstance(delta.get("content"), str):
                self.content.append(delta["content"])
            reasoning = reasoning_delta(delta)
            if reasoning:
                self.reasoning.append(reasoning)
            for tc in delta.get("tool_calls") or []:
                if not isinstance(tc, dict):
                    continue
                slot = self.tool_calls.setdefault(
                    int(tc.get("index", len(self.tool_calls))),
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                if tc.get("id"):
                    slot["id"] = tc["id"]
                fn = tc.get("function") or {}
                if fn.get("name"):
                    slot["function"]["name"] += fn["name"]
                if fn.get("arguments"):
                    slot["function"]["arguments"] += fn["arguments"]

    def result(self) -> dict[str, Any]:
        """The chat.completion."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.tool_calls:
            message["tool_calls"] = [self.tool_calls[i] for i in sorted(self.tool_calls)]
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
        }
        if self.usage is not None:
            out["usage"] = self.usage
        return out


def reasoning_delta(delta: dict[str, Any]) -> str:
    """Reasoning text of a chat delta or message: servers name it reasoning_content (vLLM, DeepSeek) or reasoning."""
    for key in ("reasoning_content", "reasoning"):
        value = delta.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


class ResponsesAssembler(Assembler):
    """OpenAI Responses events: the terminal event carries the whole response."""

    api = "responses"

    def __init__(self) -> None:
        self.response: dict[str, Any] = {}
        self.items: dict[int, dict[str, Any]] = {}

    def feed(self, event: dict[str, Any]) -> None:
        """Take one event."""
        kind = event.get("type", "")
        if kind in ("response.created", "response.in_progress", "response.completed", "response.failed") or kind in (
            "response.incomplete",
        ):
            if isinstance(event.get("response"), dict):
                self.response = event["response"]
        elif kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            self.items[int(event.get("output_index", len(self.items)))] = event["item"]

    def result(self) -> dict[str, Any]:
        """The last response object seen, with the finished items when it has none (a cut stream)."""
        out = dict(self.response)
        if not out.get("output") and self.items:
            out["output"] = [self.items[i] for i in sorted(self.items)]
        return out


class MessagesAssembler(Assembler):
    """Anthropic Messages events -> one message."""

    api = "messages"

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_json: dict[int, str] = {}
        self.usage: dict[str, Any] = {}

    def feed(self, event: dict[str, Any]) -> None:
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

    def result(self) -> dict[str, Any]:
        """The message."""
        import json

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


ASSEMBLERS: dict[str, type[Assembler]] = {
    "chat": ChatAssembler,
    "responses": ResponsesAssembler,
    "messages": MessagesAssembler,
}
