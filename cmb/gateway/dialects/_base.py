"""What every dialect provides, the registry the gateway's route table is built from, and shared helpers."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from cmb.gateway._sse import SseEvent, encode
from cmb.gateway._tokens import TokenCounts

if TYPE_CHECKING:
    from cmb.gateway._config import UpstreamConfig

Json = dict[str, Any]

TEXT_PARTS = ("text", "input_text", "output_text")


def new_id(prefix: str) -> str:
    """An id in the style of the API (resp_..., msg_..., fc_..., toolu_...)."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def flatten(content: Any) -> Any:
    """List-of-parts content as one string (text parts joined; other parts named, since they cannot be sent)."""
    if not isinstance(content, list):
        return content
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in TEXT_PARTS:
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict):
            texts.append(f"[{part.get('type', 'part')} omitted]")
    return "\n".join(texts)


def count(d: Any, *path: str) -> int:
    """A positive token count at `path` in a usage object, else 0 (absent, null, negative or not a number)."""
    for key in path:
        if not isinstance(d, dict):
            return 0
        d = d.get(key)
    return int(d) if isinstance(d, int | float) and not isinstance(d, bool) and d > 0 else 0


def bearer(headers: Mapping[str, str]) -> str:
    """The key of an `Authorization: Bearer ...` header, or ''."""
    auth = headers.get("Authorization", "")
    return auth[7:].strip() if auth[:7].lower() == "bearer " else ""


def upstream_error_message(data: Any, text: str) -> str:
    """The message of an upstream error body, whatever its dialect."""
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
        if data.get("message"):
            return str(data["message"])
    return text[:2000]


class Assembler(ABC):
    """Feeds on upstream stream events (decoded JSON); `result()` is the equivalent non-streamed reply."""

    @abstractmethod
    def feed(self, event: Json) -> None:
        """Take one event."""

    @abstractmethod
    def result(self) -> Json:
        """The reply as the non-streamed API would have returned it."""


class StreamTranslator:
    """Turns upstream stream events into client stream frames, and assembles the upstream reply on the way."""

    def __init__(self, upstream: Dialect) -> None:
        self.upstream = upstream
        self.assembler = upstream.assembler()

    def start(self) -> list[bytes]:
        """Frames to send before the first upstream event."""
        return []

    def feed(self, event: SseEvent) -> list[bytes]:
        """Frames for one upstream event."""
        raise NotImplementedError

    def finish(self) -> list[bytes]:
        """Frames after the upstream stream ended."""
        return []

    def result(self) -> Json:
        """The upstream reply as its non-streamed API would have returned it."""
        return self.assembler.result()

    def counts(self) -> TokenCounts | None:
        """Tokens, when the stream reported usage."""
        usage = self.result().get("usage")
        return self.upstream.counts(usage) if usage else None


class PassThroughStream(StreamTranslator):
    """The same dialect on both sides: forward every event the dialect lets through, recording on the way."""

    def __init__(self, dialect: Dialect, client_body: Json) -> None:
        super().__init__(dialect)
        self.client_body = client_body

    def feed(self, event: SseEvent) -> list[bytes]:
        """Forward, recording on the way."""
        obj = event.json()
        if obj is not None:
            self.assembler.feed(obj)
            if not self.upstream.forwards(obj, self.client_body):
                return []
        return [encode(event.data, event.event)]


class Dialect(ABC):
    """One model API as the gateway speaks it, to agents and to upstreams.

    Chat completions is the gateway's internal form: a dialect turns its requests into chat requests and renders
    chat replies and chat streams back, which is how its clients reach an upstream that serves only chat.
    """

    name: ClassVar[str]  # as upstreams list it in `apis`
    path: ClassVar[str]  # below /v1, on the gateway and on an upstream

    # -- requests ----------------------------------------------------------------------------------------------------

    def native_request(self, body: Json, upstream: UpstreamConfig, model: str) -> Json:
        """The client's request as an upstream serving this dialect takes it."""
        return {**body, "model": model}

    @abstractmethod
    def to_chat(self, body: Json, model: str) -> Json:
        """The client's request in the internal form: a chat request."""

    # -- replies -----------------------------------------------------------------------------------------------------

    @abstractmethod
    def from_chat(self, data: Json, client_body: Json) -> Json:
        """A chat.completion rendered as this dialect's reply to `client_body`."""

    @abstractmethod
    def stream_from_chat(self, client_body: Json, model: str) -> StreamTranslator:
        """A translator of chat chunks into this dialect's stream events."""

    def reply_message(self, data: Json) -> Json:
        """The assistant message of a (non-streamed or assembled) reply of this dialect, in chat form.

        For readers of the transcript; chat's own shape here, dialects with another reply shape override it.
        """
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else {}
        message = choice.get("message") if isinstance(choice, dict) else None
        return message if isinstance(message, dict) else {}

    def forwards(self, event: Json, client_body: Json) -> bool:
        """Whether a native stream event goes on to the client (all do, unless the dialect hides some)."""
        return True

    @abstractmethod
    def assembler(self) -> Assembler:
        """A fresh assembler of this dialect's stream events."""

    @abstractmethod
    def counts(self, usage: Any) -> TokenCounts | None:
        """Tokens of this dialect's `usage` object (None when there is none)."""

    # -- errors ------------------------------------------------------------------------------------------------------

    @abstractmethod
    def error_body(self, status: int, message: str, code: str) -> Json:
        """An error in this dialect's shape, so the client's SDK shows the message to the agent."""

    @abstractmethod
    def stream_error(self, message: str) -> bytes:
        """The event that ends a broken stream in this dialect."""

    # -- keys --------------------------------------------------------------------------------------------------------

    def client_token(self, headers: Mapping[str, str]) -> str:
        """The gateway token a client sent: a bearer token, or an x-api-key (SDKs differ in which they send)."""
        return bearer(headers) or headers.get("x-api-key", "").strip()

    def auth_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the provider key to an upstream of this dialect."""
        return {"Authorization": f"Bearer {key}"}


DIALECTS: dict[str, Dialect] = {}


def register_dialect(dialect: Dialect) -> Dialect:
    """Add a dialect: the gateway serves it at /v1<path> and upstreams may list it in `apis`."""
    DIALECTS[dialect.name] = dialect
    return dialect


def get_dialect(name: str) -> Dialect:
    """A registered dialect by name (KeyError naming the known ones otherwise)."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise KeyError(f"no gateway dialect {name!r}; known: {sorted(DIALECTS)}") from None
