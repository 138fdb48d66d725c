"""OpenAI chat completions (/v1/chat/completions): the gateway's internal form, which every local server speaks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cmb.gateway._sse import SseEvent, encode
from cmb.gateway._tokens import TokenCounts
from cmb.gateway.dialects._base import (
    Assembler,
    Dialect,
    Json,
    PassThroughStream,
    StreamTranslator,
    count,
    flatten,
    register_dialect,
)

if TYPE_CHECKING:
    from cmb.gateway._config import UpstreamConfig


def reasoning_delta(delta: Json) -> str:
    """Reasoning text of a chat delta or message: servers name it reasoning_content (vLLM, DeepSeek) or reasoning."""
    for key in ("reasoning_content", "reasoning"):
        value = delta.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def wants_usage(body: Json) -> bool:
    """Whether a chat client asked for the usage chunk at the end of its stream."""
    return bool((body.get("stream_options") or {}).get("include_usage"))


def openai_error_body(status: int, message: str, code: str) -> Json:
    """An error as OpenAI's APIs send it (chat completions and Responses alike)."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": code if status == 429 else kind, "code": code, "param": None}}


class ChatAssembler(Assembler):
    """OpenAI chat-completion chunks -> one chat.completion."""

    def __init__(self) -> None:
        self.id = ""
        self.model = ""
        self.created = 0
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None

    def feed(self, event: Json) -> None:
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

    def result(self) -> Json:
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


class ChatToClientStream(StreamTranslator):
    """Base of the translations fed by chat chunks: one `delta` call per chat delta."""

    def __init__(self, client_body: Json) -> None:
        super().__init__(CHAT)
        assert isinstance(self.assembler, ChatAssembler)
        self.chat = self.assembler
        self.client_body = client_body

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


class ChatDialect(Dialect):
    """Chat completions. Its own internal form, so its translations are the identity."""

    name = "chat"
    path = "/chat/completions"

    def native_request(self, body: Json, upstream: UpstreamConfig, model: str) -> Json:
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
        if (
            upstream.json_schema_style == "llama-cpp-python"
            and isinstance(fmt, dict)
            and fmt.get("type") == "json_schema"
        ):
            out["response_format"] = {"type": "json_object", "schema": (fmt.get("json_schema") or {}).get("schema", {})}
        if upstream.flatten_content:
            out["messages"] = [
                {**m, "content": flatten(m.get("content"))} if isinstance(m, dict) else m
                for m in out.get("messages", [])
            ]
        return out

    def to_chat(self, body: Json, model: str) -> Json:
        """The request itself, for `model`."""
        return {**body, "model": model}

    def from_chat(self, data: Json, client_body: Json) -> Json:
        """The reply itself."""
        return data

    def stream_from_chat(self, client_body: Json, model: str) -> StreamTranslator:
        """The stream itself."""
        return PassThroughStream(self, client_body)

    def forwards(self, event: Json, client_body: Json) -> bool:
        """Every chunk but the usage chunk the gateway asked for and the client did not."""
        return wants_usage(client_body) or not (event.get("usage") and not event.get("choices"))

    def assembler(self) -> Assembler:
        """Chunks -> chat.completion."""
        return ChatAssembler()

    def counts(self, usage: Any) -> TokenCounts | None:
        """From a `usage` object: prompt/completion tokens and their details."""
        if not isinstance(usage, dict):
            return None
        cached = count(usage, "prompt_tokens_details", "cached_tokens") or count(usage, "prompt_cache_hit_tokens")
        return TokenCounts(
            input=count(usage, "prompt_tokens"),
            output=count(usage, "completion_tokens"),
            cached=cached,
            reasoning=count(usage, "completion_tokens_details", "reasoning_tokens"),
        )

    def error_body(self, status: int, message: str, code: str) -> Json:
        """OpenAI's error shape."""
        return openai_error_body(status, message, code)

    def stream_error(self, message: str) -> bytes:
        """An error chunk."""
        return encode({"error": {"message": message, "type": "server_error", "code": "upstream_error"}})


CHAT = register_dialect(ChatDialect())
