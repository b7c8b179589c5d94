"""Bots over HTTP in the Bhoos Callbreak AI tournament protocol.

`codec` converts between a seat's `SeatView` and the tournament's JSON,
`server` serves any of our bots to the world, and `client` seats anyone's
HTTP bot at our tables (`RemoteBot`).
"""

from __future__ import annotations

from .client import Fault, RemoteBot, fallback_action, resolve_bot
from .codec import (
    ParsedRequest,
    card_from_bhoos,
    card_to_bhoos,
    parse_request,
    parse_response,
    view_to_request,
)

__all__ = [
    "Fault",
    "ParsedRequest",
    "RemoteBot",
    "card_from_bhoos",
    "card_to_bhoos",
    "fallback_action",
    "parse_request",
    "parse_response",
    "resolve_bot",
    "view_to_request",
]
