"""What the built-in agents share: the chat client, the time budget, the context window, the trajectory.

Standard library only: this file runs inside the sandbox next to codeact.py and react.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Json = dict[str, Any]


class ModelError(Exception):
    """The model API failed in a way that retrying here will not fix."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code

    @property
    def budget(self) -> bool:
        """True when the gateway refused the request for this attempt's budget."""
        return self.status == 429 and self.code == "budget_exceeded"


@dataclass
class Settings:
    """Options common to both agents (from a JSON file and the command line)."""

    model: str = ""
    base_url: str = ""
    api_key: str = ""
    max_steps: int = 100
    context_tokens: int = 128_000
    max_output_tokens: int = 16_384
    reasoning_effort: str | None = None
    temperature: float | None = None
    time_limit_s: float = 3600.0
    observation_chars: int = 20_000
    step_timeout_s: float = 1800.0
    response_format: str = "none"  # none | json_object | json_schema (codeact: constrain replies to the action)
    stream: bool = False  # stream replies (long generations then never sit idle on the connection)
    extra_body: Json = field(default_factory=dict)  # passed as is (e.g. a grammar for a llama.cpp server)

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> tuple[Settings, argparse.Namespace]:
        """--config FILE plus overrides; the key and URL default to CMB_API_KEY / CMB_BASE_URL."""
        parser = argparse.ArgumentParser()
        parser.add_argument("--config", type=Path)
        parser.add_argument("--prompt-file", type=Path, required=True)
        parser.add_argument("--workdir", type=Path, default=Path.cwd())
        parser.add_argument("--trajectory", type=Path, default=Path("trajectory.jsonl"))
        parser.add_argument("--model")
        parser.add_argument("--max-steps", type=int)
        parser.add_argument("--time-limit", type=float)
        args = parser.parse_args(argv)
        doc: Json = json.loads(args.config.read_text()) if args.config else {}
        known = set(cls.__dataclass_fields__)
        unknown = set(doc) - known
        if unknown:
            parser.error(f"unknown settings {sorted(unknown)}")
        s = cls(**doc)
        s.model = args.model or s.model or os.environ.get("CMB_MODEL", "")
        s.base_url = (s.base_url or os.environ.get("CMB_BASE_URL", "")).rstrip("/")
        s.api_key = s.api_key or os.environ.get("CMB_API_KEY", "")
        if args.max_steps is not None:
            s.max_steps = args.max_steps
        if args.time_limit is not None:
            s.time_limit_s = args.time_limit
        if not s.base_url or not s.model:
            parser.error("a model and a base URL are required (CMB_MODEL, CMB_BASE_URL)")
        return s, args


class Deadline:
    """The attempt's wall-clock budget, and the notice appended to every observation."""

    def __init__(self, limit_s: float, margin_s: float = 15.0) -> None:
        self.limit_s = limit_s
        # Stop this long before the harness kills us: room for interrupting a cell (10 s) and writing the end.
        self.margin_s = margin_s
        self.start = time.monotonic()

    def remaining(self) -> float:
        """Seconds left before the margin."""
        return self.limit_s - self.margin_s - (time.monotonic() - self.start)

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.start

    def notice(self, finish: str) -> str:
        """The budget line: total, what is left now, and what to do before the end."""
        total = int(self.limit_s)
        left = max(0, int(self.limit_s - self.elapsed()))
        return (
            f"[Time] Budget for the whole task: {total} s ({_span(total)}), counting model calls, thinking, tool runs "
            f"and waiting. Left now: {left} s ({_span(left)}). Write the required answer files and {finish} before "
            "the time runs out."
        )


def _span(seconds: int) -> str:
    minutes, secs = divmod(seconds, 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def truncate(text: str, limit: int) -> str:
    """Head and tail of a long text, with how much was cut between them."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n... [{len(text) - limit} characters cut] ...\n{text[-tail:]}"


@dataclass
class Totals:
    """The agent's own count of the usage the API reported (the gateway's meter is the one trusted)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, usage: Any) -> None:
        """Add one chat-completions usage object."""
        self.requests += 1
        if not isinstance(usage, dict):
            return
        self.input_tokens += int(usage.get("prompt_tokens") or 0)
        self.output_tokens += int(usage.get("completion_tokens") or 0)
        self.cached_tokens += int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        self.reasoning_tokens += int((usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)


class Client:
    """Chat completions over urllib. Transient faults are retried briefly (the gateway retries the provider)."""

    def __init__(self, settings: Settings, deadline: Deadline) -> None:
        self.s = settings
        self.deadline = deadline
        self.totals = Totals()
        self.last_prompt_tokens = 0

    def chat(self, messages: list[Json], **extra: Any) -> Json:
        """One chat completion (non-streamed); raises ModelError."""
        body: Json = {"model": self.s.model, "messages": messages, "max_tokens": self.s.max_output_tokens}
        if self.s.reasoning_effort:
            body["reasoning_effort"] = self.s.reasoning_effort
        if self.s.temperature is not None:
            body["temperature"] = self.s.temperature
        if self.s.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        body.update(self.s.extra_body)
        body.update({k: v for k, v in extra.items() if v is not None})
        data = json.dumps(body).encode()
        for attempt in range(4):
            timeout = max(5.0, self.deadline.remaining())
            req = urllib.request.Request(
                f"{self.s.base_url}/v1/chat/completions",
                data=data,
                method="POST",
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.s.api_key}"},
            )
            try:
                with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the gateway URL
                    out: Json = read_stream(resp) if self.s.stream else json.loads(resp.read())
                break
            except urllib.error.HTTPError as exc:
                raw = exc.read().decode(errors="replace")
                message, code = _error_message(raw)
                if exc.code in (502, 503, 504) and attempt < 3 and self.deadline.remaining() > 30:
                    time.sleep(2**attempt + random.random())  # noqa: S311
                    continue
                raise ModelError(f"HTTP {exc.code}: {message}", exc.code, code) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt < 3 and self.deadline.remaining() > 30:
                    time.sleep(2**attempt + random.random())  # noqa: S311
                    continue
                raise ModelError(f"cannot reach the model: {exc}") from None
        self.totals.add(out.get("usage"))
        usage = out.get("usage") or {}
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0) if isinstance(usage, dict) else 0
        return out


def read_stream(lines: Any) -> Json:
    """A streamed chat completion (SSE lines) assembled into the non-streamed shape."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, Json] = {}
    out: Json = {"choices": [{"index": 0, "finish_reason": None}]}
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        if "error" in chunk:
            raise ModelError(f"stream error: {chunk['error']}")
        if chunk.get("usage"):
            out["usage"] = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                out["choices"][0]["finish_reason"] = choice["finish_reason"]
            content.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning_content") or delta.get("reasoning") or "")
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(
                    int(tc.get("index", 0)), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                )
                slot["id"] = tc.get("id") or slot["id"]
                fn = tc.get("function") or {}
                slot["function"]["name"] += fn.get("name") or ""
                slot["function"]["arguments"] += fn.get("arguments") or ""
    message: Json = {"role": "assistant", "content": "".join(content) or None}
    if any(reasoning):
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    out["choices"][0]["message"] = message
    return out


def _error_message(raw: str) -> tuple[str, str | None]:
    try:
        doc = json.loads(raw)
    except ValueError:
        return raw[:500], None
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict):
        return str(err.get("message", raw[:500])), err.get("code") or err.get("type")
    return raw[:500], None


def fit_context(messages: list[Json], context_tokens: int, reserve: int, keep_head: int = 2) -> list[Json]:
    """Drop the oldest turns after the first `keep_head` messages until the estimate fits; say what was dropped.

    Four characters a token is the estimate: crude, but the budget it guards is coarse too.
    """
    budget = max(1000, context_tokens - reserve)

    def size(ms: list[Json]) -> int:
        return sum(len(json.dumps(m)) for m in ms) // 4

    if size(messages) <= budget:
        return messages
    head, tail = messages[:keep_head], messages[keep_head:]
    dropped = 0
    while tail and size(head + tail) > budget:
        # drop whole turns: an assistant message together with the tool/observation messages that answer it
        tail.pop(0)
        dropped += 1
        while tail and tail[0].get("role") == "tool":
            tail.pop(0)
            dropped += 1
    note = {"role": "user", "content": f"[{dropped} earlier messages were removed to fit the context window.]"}
    return [*head, note, *tail]


class Trajectory:
    """The run as JSON lines: start, one line per step, end (also printed to stdout for the harness)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = path.open("a", encoding="utf-8")

    def write(self, kind: str, **fields: Any) -> None:
        """Append one line."""
        self.f.write(json.dumps({"type": kind, "t": round(time.time(), 3), **fields}, default=str) + "\n")
        self.f.flush()

    def end(self, reason: str, steps: int, totals: Totals, **fields: Any) -> None:
        """The last line: why the run ended and its usage as the agent saw it."""
        doc = {"type": "end", "reason": reason, "steps": steps, "usage": totals.__dict__, **fields}
        self.f.write(json.dumps(doc, default=str) + "\n")
        self.f.close()
        print(json.dumps(doc, default=str), flush=True)


EXIT_CODES = {"final_answer": 0, "submit": 0, "step_limit": 3, "time_limit": 4, "budget": 5, "model_error": 6}


def log(message: str) -> None:
    """Progress to stderr (the harness keeps it)."""
    print(message, file=sys.stderr, flush=True)
