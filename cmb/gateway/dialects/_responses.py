"""OpenAI Responses (/v1/responses), as Codex CLI speaks it; translated from chat for chat-only upstreams."""

from __future__ import annotations

import json
import time
from typing import Any

from cmb.gateway._sse import encode
from cmb.gateway._tokens import TokenCounts
from cmb.gateway.dialects._base import (
    TEXT_PARTS,
    Assembler,
    Dialect,
    Json,
    StreamTranslator,
    count,
    flatten,
    new_id,
    register_dialect,
)
from cmb.gateway.dialects._chat import ChatToClientStream, openai_error_body, reasoning_delta


def _chat_call(item: Json) -> Json:
    """A function_call or custom_tool_call item as a chat tool call (a custom tool's input wrapped as arguments)."""
    kind = item.get("type")
    args = item.get("arguments", "") if kind == "function_call" else json.dumps({"input": item.get("input")})
    return {"id": item.get("call_id"), "type": "function", "function": {"name": item.get("name"), "arguments": args}}


def responses_to_chat(body: Json, model: str) -> Json:
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
            call = _chat_call(item)
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
    return out


def _responses_parts_to_chat(parts: list[Any]) -> list[Json]:
    out: list[Json] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") in TEXT_PARTS:
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


class ResponsesAssembler(Assembler):
    """Responses events: the terminal event carries the whole response."""

    def __init__(self) -> None:
        self.response: dict[str, Any] = {}
        self.items: dict[int, dict[str, Any]] = {}

    def feed(self, event: Json) -> None:
        """Take one event."""
        kind = event.get("type", "")
        if kind in _WHOLE_RESPONSE_EVENTS:
            if isinstance(event.get("response"), dict):
                self.response = event["response"]
        elif kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            self.items[int(event.get("output_index", len(self.items)))] = event["item"]

    def result(self) -> Json:
        """The last response object seen, with the finished items when it has none (a cut stream)."""
        out = dict(self.response)
        if not out.get("output") and self.items:
            out["output"] = [self.items[i] for i in sorted(self.items)]
        return out


_WHOLE_RESPONSE_EVENTS = frozenset(
    {"response.created", "response.in_progress", "response.completed", "response.failed", "response.incomplete"}
)


class ResponsesDialect(Dialect):
    """OpenAI Responses."""

    name = "responses"
    path = "/responses"

    def to_chat(self, body: Json, model: str) -> Json:
        """Instructions and input items as chat messages; function and custom tools as chat tools."""
        return responses_to_chat(body, model)

    def from_chat(self, data: Json, client_body: Json) -> Json:
        """A chat.completion as a response object."""
        return chat_to_responses(data, client_body)

    def reply_message(self, data: Json) -> Json:
        """A response's message, reasoning and tool-call output items as a chat assistant message."""
        texts, reasoning, calls = [], [], []
        for item in data.get("output") or []:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "message":
                texts += [str(p.get("text", "")) for p in item.get("content") or [] if isinstance(p, dict)]
            elif kind == "reasoning":
                parts = [*(item.get("summary") or []), *(item.get("content") or [])]
                reasoning += [str(p.get("text", "")) for p in parts if isinstance(p, dict)]
            elif kind in ("function_call", "custom_tool_call"):
                calls.append(_chat_call(item))
        message: Json = {"role": "assistant", "content": "".join(texts) or None}
        if reasoning:
            message["reasoning_content"] = "\n".join(reasoning)
        if calls:
            message["tool_calls"] = calls
        return message

    def stream_from_chat(self, client_body: Json, model: str) -> StreamTranslator:
        """Chat chunks as the Responses event sequence."""
        return ResponsesFromChatStream(client_body, model)

    def assembler(self) -> Assembler:
        """Events -> response."""
        return ResponsesAssembler()

    def counts(self, usage: Any) -> TokenCounts | None:
        """From a Responses `usage` object."""
        if not isinstance(usage, dict):
            return None
        return TokenCounts(
            input=count(usage, "input_tokens"),
            output=count(usage, "output_tokens"),
            cached=count(usage, "input_tokens_details", "cached_tokens"),
            reasoning=count(usage, "output_tokens_details", "reasoning_tokens"),
        )

    def error_body(self, status: int, message: str, code: str) -> Json:
        """OpenAI's error shape."""
        return openai_error_body(status, message, code)

    def stream_error(self, message: str) -> bytes:
        """response.failed."""
        failed = {
            "type": "response.failed",
            "response": {"status": "failed", "error": {"code": "server_error", "message": message}},
        }
        return encode(failed, "response.failed")


RESPONSES = register_dialect(ResponsesDialect())
