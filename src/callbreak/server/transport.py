"""What a WebSocket's handshake carries, and the one thing ASGI cannot ask for: drop a connection at once.

A page gives its seat's token in the handshake's ``Sec-WebSocket-Protocol`` (`SUBPROTOCOL`, and
``token.<TOKEN>`` beside it: `handshake`), never in the URL, which proxies and their logs keep
(a ``?token=`` in the URL is still taken, from clients of before).

ASGI can only ask for a close, and a close waits behind whatever the peer has not read: a client
that never reads would keep its socket, and every byte queued for it, for as long as it likes.
`ExposeAbort` (an ASGI middleware, outside Starlette's own, which wrap ``send``) finds the
transport under a WebSocket (uvicorn's ``send`` is a method of its protocol object, which holds
the transport) and puts its ``abort`` in the scope; `abort_of` reads it back.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["ABORT", "SUBPROTOCOL", "ExposeAbort", "abort_of", "handshake", "offered_subprotocols"]

#: the subprotocol a client of ours offers (the server accepts it, as a browser requires)
SUBPROTOCOL = "callbreak"
#: the prefix of the subprotocol that carries a seat's token
TOKEN_PREFIX = "token."


def offered_subprotocols(headers: Any) -> list[str]:
    """The subprotocols a handshake's headers (ASGI: pairs of bytes) offer.

    >>> offered_subprotocols([(b"sec-websocket-protocol", b"callbreak, token.abc"), (b"host", b"x")])
    ['callbreak', 'token.abc']
    """
    out: list[str] = []
    for k, v in headers or ():
        if bytes(k).lower() == b"sec-websocket-protocol":
            out += [p.strip() for p in bytes(v).decode("latin-1").split(",") if p.strip()]
    return out


def handshake(scope: Scope) -> tuple[str | None, str | None]:
    """The subprotocol to accept (`SUBPROTOCOL` when offered, else none) and the seat token a
    WebSocket's handshake offers (None: a spectator, or a token in the URL's query).

    >>> handshake({"subprotocols": ["callbreak", "token.k3Xa9Q-_z"]})
    ('callbreak', 'k3Xa9Q-_z')
    >>> handshake({"subprotocols": []}), handshake({"headers": [(b"sec-websocket-protocol", b"callbreak")]})
    ((None, None), ('callbreak', None))
    """
    protos = list(scope.get("subprotocols") or ()) or offered_subprotocols(scope.get("headers"))
    token = next((p[len(TOKEN_PREFIX):] for p in protos if p.startswith(TOKEN_PREFIX)), None)
    return (SUBPROTOCOL if SUBPROTOCOL in protos else None), token or None

#: the scope key of a WebSocket's ``abort()``
ABORT = "callbreak.abort"


class ExposeAbort:
    """ASGI middleware: a WebSocket's scope gets ``abort`` (under `ABORT`) when the server shows its transport.

    >>> import asyncio
    >>> seen = []
    >>> async def app(scope, receive, send):
    ...     seen.append(abort_of(scope))
    >>> class Transport:
    ...     def abort(self):
    ...         print("aborted")
    >>> class Protocol:   # what uvicorn's send is a method of
    ...     transport = Transport()
    ...     async def send(self, message):
    ...         pass
    >>> asyncio.run(ExposeAbort(app)({"type": "websocket"}, None, Protocol().send)); seen[0]()
    aborted
    >>> asyncio.run(ExposeAbort(app)({"type": "http"}, None, Protocol().send)); seen[1]
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)  # asyncio's or uvloop's transport
            if callable(abort):
                scope = {**scope, ABORT: abort}
        await self.app(scope, receive, send)


def abort_of(scope: MutableMapping[str, Any]) -> Callable[[], None] | None:
    """The connection's ``abort`` (None when the ASGI server did not show its transport).

    >>> abort_of({ABORT: lambda: None}) is not None, abort_of({}), abort_of({ABORT: "not callable"})
    (True, None, None)
    """
    abort = scope.get(ABORT)
    return abort if callable(abort) else None
