"""A scripted OpenAI/Anthropic-compatible TEST server: it returns canned replies and records every request.

Not a model and not the gateway: it exists so adapter tests can show that an agent program starts, calls the base
URL it was given with the per-run key, and that its output and usage are captured. It speaks just enough of three
APIs: Chat Completions (mini-swe-agent via litellm), Responses over SSE (Codex CLI) and Messages (Claude Code).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE_IN, USAGE_OUT = 11, 5


@dataclass
class Seen:
    """One request as received."""

    method: str
    path: str
    auth: str | None
    body: dict[str, Any]


@dataclass
class Script:
    """Replies handed out in order; once used up, every reply is a plain final text."""

    chat: list[dict[str, Any]] = field(default_factory=list)  # assistant messages for chat completions
    final_text: str = "All done."


def bash_call(command: str, call_id: str = "call_1") -> dict[str, Any]:
    """An assistant message asking for one bash tool call (mini-swe-agent's only tool)."""
    args = json.dumps({"command": command})
    return {
        "role": "assistant",
        "content": "Running a command.",
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "bash", "arguments": args}}],
    }


class ScriptedLLMServer:
    """Threaded HTTP server on 127.0.0.1 (or all interfaces) with a random port."""

    def __init__(self, script: Script | None = None, host: str = "127.0.0.1") -> None:
        self.script = script or Script()
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.record(self, {})
                self._json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode(errors="replace")}
                server.record(self, body)
                path = self.path.split("?")[0]
                if path.endswith("/chat/completions"):
                    self._json(200, server.chat_reply(body))
                elif path.endswith("/responses"):
                    self._sse(server.responses_events())
                elif path.endswith("/messages"):
                    if body.get("stream"):
                        self._sse(server.messages_events(body))
                    else:
                        self._json(200, server.messages_reply(body))
                else:
                    self._json(404, {"error": {"message": f"no route {path}"}})

            def _json(self, status: int, obj: dict[str, Any]) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        """Root URL without /v1 (what the harness hands an agent)."""
        return f"http://127.0.0.1:{self.port}"

    def record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        auth = handler.headers.get("Authorization") or handler.headers.get("x-api-key")
        with self.lock:
            self.requests.append(Seen(handler.command, handler.path, auth, body))

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- the three APIs -----------------------------------------------------------------------------------------

    def chat_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            message = self.script.chat.pop(0) if self.script.chat else None
        if message is None:
            message = {"role": "assistant", "content": self.script.final_text}
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT, "total_tokens": USAGE_IN + USAGE_OUT},
        }

    def responses_events(self) -> list[tuple[str, dict[str, Any]]]:
        item = {
            "type": "message",
            "id": "msg_test",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": self.script.final_text, "annotations": []}],
        }
        usage = {
            "input_tokens": USAGE_IN,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": USAGE_OUT,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": USAGE_IN + USAGE_OUT,
        }
        response = {"id": "resp_test", "object": "response", "status": "completed", "output": [item], "usage": usage}
        return [
            ("response.created", {"type": "response.created", "response": {**response, "status": "in_progress"}}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]

    def messages_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "test-model"),
            "content": [{"type": "text", "text": self.script.final_text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT},
        }

    def messages_events(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        start = {**self.messages_reply(body), "content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": USAGE_IN, "output_tokens": 1}
        text = self.script.final_text
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        return [
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": USAGE_OUT}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
