"""The model APIs the gateway speaks, one module each: chat completions, Responses, Messages.

A dialect parses its requests into the internal form (a chat request), renders chat replies, streams and errors
in its own shape, and knows its auth headers. The gateway's route table is built from `DIALECTS`; a new API is one
module and one `register_dialect` call.
"""

from cmb.gateway.dialects._base import (
    DIALECTS,
    Assembler,
    Dialect,
    PassThroughStream,
    StreamTranslator,
    get_dialect,
    register_dialect,
    upstream_error_message,
)
from cmb.gateway.dialects._chat import CHAT, ChatDialect, ChatToClientStream
from cmb.gateway.dialects._messages import MESSAGES, MessagesDialect
from cmb.gateway.dialects._responses import RESPONSES, ResponsesDialect
from cmb.gateway.dialects._route import Route, route_for

__all__ = [
    "CHAT",
    "DIALECTS",
    "MESSAGES",
    "RESPONSES",
    "Assembler",
    "ChatDialect",
    "ChatToClientStream",
    "Dialect",
    "MessagesDialect",
    "PassThroughStream",
    "ResponsesDialect",
    "Route",
    "StreamTranslator",
    "get_dialect",
    "register_dialect",
    "route_for",
    "upstream_error_message",
]
