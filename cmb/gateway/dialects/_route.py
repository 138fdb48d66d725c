"""How a client's dialect reaches an upstream: natively when the upstream serves it, else through chat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cmb.gateway.dialects._base import Dialect, Json, PassThroughStream, StreamTranslator
from cmb.gateway.dialects._chat import CHAT

if TYPE_CHECKING:
    from cmb.gateway._config import UpstreamConfig


@dataclass(frozen=True)
class Route:
    """One client dialect to one upstream dialect: the client's own, or chat (the internal form)."""

    client: Dialect
    upstream: Dialect

    @property
    def translated(self) -> bool:
        """True when the two dialects differ."""
        return self.client is not self.upstream

    def request(self, body: Json, upstream: UpstreamConfig, model: str) -> Json:
        """The client's request as the upstream takes it."""
        if self.translated:
            body = self.client.to_chat(body, model)
        return self.upstream.native_request(body, upstream, model)

    def response(self, data: Json, client_body: Json) -> Json:
        """The upstream's reply as the client expects it."""
        return self.client.from_chat(data, client_body) if self.translated else data

    def stream(self, client_body: Json, model: str) -> StreamTranslator:
        """A translator of the upstream's stream for the client."""
        return (
            self.client.stream_from_chat(client_body, model)
            if self.translated
            else PassThroughStream(self.client, client_body)
        )


def route_for(client: Dialect, upstream: UpstreamConfig) -> Route | None:
    """The native route when the upstream serves the client's dialect, else a translation through chat."""
    if client.name in upstream.apis:
        return Route(client, client)
    if CHAT.name in upstream.apis:
        return Route(client, CHAT)
    return None
