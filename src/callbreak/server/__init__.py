"""Online tables: ``callbreak serve`` (Starlette on uvicorn, SQLite by default).

The pieces, lowest first: `table` (a table's pure state, rebuilt from its
append-only log), `store` (the `Store` interface, `SQLiteStore`), `broker`
(the `Broker` fan-out interface, `LocalBroker`), `ratelimit` (token buckets),
`conn` (one WebSocket and its send queue), `autopilot` (bots and the timers'
automatic actions), `live` (a table in play: commit, publish, its timers),
`hinting` and `history` (hints and hand histories), `protocol` (every WebSocket
message and error code as types, validated at the edge), `hub` (the registry of
tables and the dispatch of messages) and `app` (HTTP and WebSocket routes).  The protocol is in
``docs/protocol.md`` and ``docs/protocol.schema.json``.
"""

from __future__ import annotations

from ..extras import need
from .config import ServerConfig

__all__ = ["ServerConfig", "create_app"]


def create_app(config: ServerConfig | None = None) -> object:
    """The ASGI application (imported lazily so ``import callbreak.server`` stays light).

    >>> import asyncio, httpx
    >>> app = create_app(ServerConfig(db=":memory:"))
    >>> async def get(path):
    ...     async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t") as client:
    ...         return (await client.get(path)).status_code
    >>> from starlette.applications import Starlette
    >>> isinstance(app, Starlette), asyncio.run(get("/healthz"))
    (True, 200)
    """
    need("the web app", "server")
    from .app import create_app as _create

    return _create(config)
