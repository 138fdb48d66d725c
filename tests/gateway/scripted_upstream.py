"""A TEST server, not a model: an OpenAI-compatible chat-completions endpoint that replays scripted replies.

Each request consumes the next reply of the script, in order. A reply is a dict:
  content: str | None            the assistant message text
  tool_calls: [{name, arguments}] tool calls (arguments: dict or JSON string)
  reasoning: str                 reasoning_content (as vLLM/DeepSeek send it)
  usage: {prompt, completion, cached, reasoning}   token counts reported back (default: small fixed numbers)
  status: int                    answer this HTTP status instead (e.g. 500) -- the reply is consumed
  finish_reason: str             default "tool_calls" with tool calls, else "stop"
  hang: float                    wait this many seconds before answering (an upstream that hangs)
  reset: bool                    drop the connection: before any byte, or after the first chunk of a stream
  raw: str                       answer 200 with this body, as it is (garbage where a reply belongs)
  forever: bool                  never finish: a stream sends a keep-alive comment every 50 ms, a plain reply
                                 trickles one byte every 50 ms
It also serves /v1/responses and /v1/messages natively (built from the same script) for pass-through tests, checks
the provider key it was given, and keeps every request it received in `requests`.

Run standalone: python -m tests.gateway.scripted_upstream SCRIPT.json [--port N] [--key KEY]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from cmb.gateway._sse import SseEvent, encode
from cmb.gateway.dialects import get_dialect


def chat_completion(reply: dict[str, Any], model: str) -> dict[str, Any]:
    """The chat.completion of a scripted reply."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if reply.get("reasoning"):
        message["reasoning_content"] = reply["reasoning"]
    calls = [_call(i, c) for i, c in enumerate(reply.get("tool_calls") or [])]
    if calls:
        message["tool_calls"] = calls
    finish = reply.get("finish_reason") or ("tool_calls" if calls else "stop")
    return {
        "id": f"chatcmpl-scripted-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _usage(reply),
    }


def _call(i: int, c: dict[str, Any]) -> dict[str, Any]:
    args = c.get("arguments", {})
    return {
        "id": c.get("id", f"call_{i}_{time.monotonic_ns()}"),
        "type": "function",
        "function": {"name": c["name"], "arguments": args if isinstance(args, str) else json.dumps(args)},
    }


def _usage(reply: dict[str, Any]) -> dict[str, Any]:
    u = {"prompt": 100, "completion": 20, "cached": 0, "reasoning": 0, **(reply.get("usage") or {})}
    return {
        "prompt_tokens": u["prompt"],
        "completion_tokens": u["completion"],
        "total_tokens": u["prompt"] + u["completion"],
        "prompt_tokens_details": {"cached_tokens": u["cached"]},
        "completion_tokens_details": {"reasoning_tokens": u["reasoning"]},
    }


def chat_chunks(reply: dict[str, Any], model: str, with_usage: bool) -> list[dict[str, Any]]:
    """The same reply as stream chunks: text split in pieces, tool arguments split too, usage last."""
    done = chat_completion(reply, model)
    base = {"id": done["id"], "object": "chat.completion.chunk", "created": done["created"], "model": model}
    msg = done["choices"][0]["message"]
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}]

    def piece(delta: dict[str, Any]) -> None:
        chunks.append({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})

    for text in _split(msg.get("reasoning_content") or ""):
        piece({"reasoning_content": text})
    for text in _split(msg.get("content") or ""):
        piece({"content": text})
    for i, call in enumerate(msg.get("tool_calls") or []):
        head = {"index": i, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"]}}
        piece({"tool_calls": [{**head, "function": {**head["function"], "arguments": ""}}]})
        for text in _split(call["function"]["arguments"]):
            piece({"tool_calls": [{"index": i, "function": {"arguments": text}}]})
    chunks.append(
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": done["choices"][0]["finish_reason"]}]}
    )
    if with_usage:
        chunks.append({**base, "choices": [], "usage": done["usage"]})
    return chunks


def _split(text: str, n: int = 7) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


async def _forever(request: web.Request, stream: bool) -> web.StreamResponse:
    """A reply that never ends (until the client goes away)."""
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream" if stream else "application/json"})
    await resp.prepare(request)
    try:
        while True:
            await resp.write(b": keep-alive\n\n" if stream else b" ")
            await asyncio.sleep(0.05)
    except (ConnectionError, RuntimeError):
        return resp


def _drop(request: web.Request) -> None:
    """Abort the TCP connection (a reset, as a crashed provider or proxy leaves it)."""
    if request.transport is not None:
        request.transport.abort()


class ScriptedUpstream:
    """The test server, served from a thread: `with ScriptedUpstream(replies) as up: up.base_url`."""

    def __init__(self, replies: list[dict[str, Any]], key: str = "sk-upstream-secret", port: int = 0) -> None:
        self.replies = list(replies)
        self.key = key
        self.port = port
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def base_url(self) -> str:
        """OpenAI-style base URL, with /v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """Replies not consumed yet."""
        return len(self.replies)

    def _next(self, request: web.Request, body: dict[str, Any]) -> dict[str, Any] | web.Response:
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        auth = request.headers.get("Authorization", "") or f"Bearer {request.headers.get('x-api-key', '')}"
        if auth != f"Bearer {self.key}":
            return web.json_response({"error": {"message": "bad provider key", "type": "auth"}}, status=401)
        if not self.replies:
            return web.json_response({"error": {"message": "script exhausted", "type": "test"}}, status=400)
        reply = self.replies.pop(0)
        if reply.get("status"):
            return web.json_response({"error": {"message": f"scripted {reply['status']}"}}, status=reply["status"])
        return reply

    async def chat(self, request: web.Request) -> web.StreamResponse:
        """POST /v1/chat/completions."""
        body = await request.json()
        reply = self._next(request, body)
        if isinstance(reply, web.Response):
            return reply
        model = str(body.get("model"))
        if reply.get("hang"):
            await asyncio.sleep(float(reply["hang"]))
        if "raw" in reply:
            return web.Response(text=str(reply["raw"]), content_type="application/json")
        if reply.get("forever"):
            return await _forever(request, bool(body.get("stream")))
        if reply.get("reset") and not body.get("stream"):
            _drop(request)
            return web.Response()
        if not body.get("stream"):
            return web.json_response(chat_completion(reply, model))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        wants = bool((body.get("stream_options") or {}).get("include_usage"))
        for chunk in chat_chunks(reply, model, wants):
            await resp.write(encode(chunk))
            if reply.get("reset"):
                _drop(request)
                return resp
        await resp.write(b"data: [DONE]\n\n")
        return resp

    async def native(self, request: web.Request, api: str) -> web.StreamResponse:
        """POST /v1/responses or /v1/messages, built from the scripted chat reply."""
        body = await request.json()
        reply = self._next(request, body)
        if isinstance(reply, web.Response):
            return reply
        model = str(body.get("model"))
        dialect = get_dialect(api)
        if not body.get("stream"):
            return web.json_response(dialect.from_chat(chat_completion(reply, model), body))
        translator = dialect.stream_from_chat(body, model)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        frames = translator.start()
        for chunk in chat_chunks(reply, model, True):
            frames += translator.feed(SseEvent(None, json.dumps(chunk)))
        frames += translator.finish()
        for frame in frames:
            await resp.write(frame)
        return resp

    def app(self) -> web.Application:
        """The aiohttp application."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.chat)

        async def responses(request: web.Request) -> web.StreamResponse:
            return await self.native(request, "responses")

        async def messages(request: web.Request) -> web.StreamResponse:
            return await self.native(request, "messages")

        app.router.add_post("/v1/responses", responses)
        app.router.add_post("/v1/messages", messages)
        return app

    def start(self) -> ScriptedUpstream:
        """Serve from a daemon thread."""
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("scripted upstream did not start")
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        runner = web.AppRunner(self.app(), access_log=None)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", self.port)
        loop.run_until_complete(site.start())
        self.port = int(runner.addresses[0][1])
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    def stop(self) -> None:
        """Stop serving."""
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> ScriptedUpstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """Serve a script file until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", default="sk-upstream-secret")
    args = parser.parse_args()
    server = ScriptedUpstream(json.loads(args.script.read_text()), key=args.key, port=args.port).start()
    print(f"scripted upstream (a test server) on {server.base_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
