"""The Starlette application: pages, the JSON API and the table WebSocket on one port.

See ``docs/protocol.md`` for every message.  `create_app` builds the app around
a `Hub`; ``callbreak serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..i18n import DIR as I18N
from ..i18n import LANGUAGES
from ..rules import Ruleset
from .admission import Admission
from .api import B, answer, read_body
from .bodies import (
    CreateTable,
    HttpError,
    JoinInfo,
    JoinTable,
    Matches,
    MatchTokens,
    Ok,
    Practice,
    SeatAnswer,
    SeatToken,
    TableView,
)
from .clock import ManualClock
from .config import ServerConfig
from .headers import SecurityHeaders
from .hub import Hub
from .live import LiveTable
from .outage import UNAVAILABLE
from .protocol import Error, ErrorCode, State, encode
from .pwa import SHELL, SW_HEADERS, AppFiles, file_answer, page_answer, service_worker
from .store import StoreUnavailable
from .table import TableError
from .transport import ExposeAbort, abort_of, handshake

__all__ = ["STATIC", "create_app"]

log = logging.getLogger("callbreak.server")

STATIC = Path(__file__).parent / "static"

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Callbreak</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Callbreak</h1><p>The server is running; the web client is not installed.
See <code>docs/protocol.md</code> for the API.</p></body></html>
"""

_STATUS = {
    "no_table": 404,
    "no_analysis": 404,
    "not_over": 409,
    "wrong_status": 409,
    "seat_taken": 409,
    "table_full": 409,
    "name_taken": 409,
    "rematch": 409,
    "bad_token": 403,
    "not_host": 403,
    "rate_limited": 429,
    "too_large": 413,
    "upgrade_required": 426,
    "unavailable": 503,
    "internal": 500,
}


def _error(code: str, message: str, status: int | None = None) -> Response:
    return answer(HttpError(ErrorCode(code), message), status or _STATUS.get(code, 400))


def _too_many(message: str, rate: float) -> Response:
    """A 429 with the seconds until the address may ask again (one more of ``rate`` a second).

    >>> r = _too_many("too many tables from here; wait a little", 0.2)
    >>> r.status_code, r.headers["retry-after"]
    (429, '5')
    """
    response = _error("rate_limited", message)
    response.headers["Retry-After"] = str(max(1, math.ceil(1 / rate))) if rate > 0 else "60"
    return response


def _client_ip(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "?"


async def _raw_body(request: Request, limit: int) -> bytes:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise TableError("too_large", f"request bodies are at most {limit} bytes")
    return raw


class _App(Starlette):
    """Starlette with `Admission` in front of its whole stack: a WebSocket over its address's
    limits is refused before Starlette does anything for it."""

    def __init__(self, hub: Hub, **kwargs: Any) -> None:
        self.hub = hub
        super().__init__(**kwargs)

    def build_middleware_stack(self) -> ASGIApp:
        return Admission(super().build_middleware_stack(), self.hub)


def create_app(config: ServerConfig | None = None, hub: Hub | None = None) -> Starlette:
    """The ASGI app.  ``config`` defaults to `ServerConfig.from_env`.

    >>> app = create_app(ServerConfig(db=":memory:"))
    >>> sorted({r.path for r in app.routes if getattr(r, "path", "").startswith("/api")})[:3]
    ['/api/join/{code}', '/api/matches', '/api/tables']
    """
    cfg = config or ServerConfig.from_env()
    if hub is None:
        # a driven clock starts at the real time: tables stored by an earlier process are in its past
        hub = Hub(cfg, clock=ManualClock(start=time.time())) if cfg.test_hooks else Hub(cfg)
    the_hub = hub
    static = Path(cfg.static) if cfg.static else STATIC

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await the_hub.startup()
        try:
            yield
        finally:
            await the_hub.shutdown()

    async def page(request: Request) -> Response:
        index = static / "index.html"
        if index.is_file():
            return page_answer(request.headers, index)  # (in the reader's words: Accept-Language)
        return HTMLResponse(PLACEHOLDER)

    # Built once: the static files do not change while the server runs.
    worker = service_worker(static) if (static / "sw.js").is_file() else None

    async def sw(request: Request) -> Response:
        if worker is None:
            return Response("the web client is not installed", status_code=404, media_type="text/plain")
        return Response(worker, media_type="text/javascript", headers=SW_HEADERS)

    async def catalogue(request: Request) -> Response:
        """A language's catalogue (callbreak.i18n's JSON, the one source of the client's words)."""
        name = request.path_params["name"]
        if name.removesuffix(".json") not in LANGUAGES or not name.endswith(".json"):
            return JSONResponse({"error": "not_found", "message": "no such catalogue"}, status_code=404)
        return file_answer(request.headers, I18N / name, "application/json")

    async def healthz(request: Request) -> Response:
        conns = sum(len(c) for t in the_hub.tables.values() for c in t.conns.values())
        return JSONResponse({"ok": True, "tables": len(the_hub.tables), "connections": conns, "pid": os.getpid()})

    def guard(fn: Any) -> Any:
        async def wrapped(request: Request) -> Response:
            try:
                return await fn(request)  # type: ignore[no-any-return]
            except TableError as e:
                return _error(e.code, e.message)

        return wrapped

    def seat_answer(t: LiveTable, seat: int, token: str) -> Response:
        invite = t.state.meta.invite
        return answer(SeatAnswer(t.id, seat, token, invite, f"/join/{invite}", f"/watch/{t.id}", f"/t/{t.id}#{token}"))

    async def read(request: Request, kind: type[B]) -> B:
        return read_body(await _raw_body(request, cfg.max_body), kind)

    @guard
    async def create_table(request: Request) -> Response:
        if not the_hub.allow_create(_client_ip(request)):
            return _too_many("too many tables from here; wait a little", the_hub.config.create_rate)
        body = await read(request, CreateTable)
        try:
            rules = Ruleset.from_dict(body.rules or {})
        except (ValueError, TypeError) as e:
            return _error("bad_rules", str(e))
        t, tokens = the_hub.create_table(rules, body.bots, body.name, body.play_now, lang=body.lang)
        return seat_answer(t, 0, tokens[0])

    @guard
    async def table_info(request: Request) -> Response:
        t = await the_hub.settled(request.path_params["id"])  # only what the store holds
        if t is None:
            return _error("no_table", "there is no such table")
        view = TableView(
            table=t.table_info(-1),
            state=msgspec.convert(t.state.state(-1), State | None),
            sheet=t.state.sheet(),
            watch_url=f"/watch/{t.id}",
        )
        return answer(view)

    @guard
    async def join_info(request: Request) -> Response:
        code = request.path_params["code"]
        tid = the_hub.store.find_invite(code)
        t = await the_hub.settled(tid) if tid else None
        if t is None:
            return _error("no_table", "this invite is not valid")
        info = t.table_info(-1)
        return answer(
            JoinInfo(
                table=t.id,
                status=info.status,
                seats=info.seats,
                rules=info.rules,
                bots=info.bots,
                host=info.host,
                watch_url=f"/watch/{t.id}",
            )
        )

    @guard
    async def join(request: Request) -> Response:
        if not the_hub.allow_create(_client_ip(request)):
            return _too_many("too many joins from here; wait a little", the_hub.config.create_rate)
        body = await read(request, JoinTable)
        t, seat, token = the_hub.join(request.path_params["code"], body.name, body.seat, body.lang, body.attempt)
        return seat_answer(t, seat, token)

    @guard
    async def start(request: Request) -> Response:
        body = await read(request, SeatToken)
        the_hub.start_table(request.path_params["id"], body.token)
        return answer(Ok())

    @guard
    async def rematch(request: Request) -> Response:
        body = await read(request, SeatToken)
        t, seat, token = the_hub.rematch(request.path_params["id"], body.token)
        return seat_answer(t, seat, token)

    @guard
    async def history(request: Request) -> Response:
        fmt = request.query_params.get("format", "text")
        media, text = the_hub.history(request.path_params["id"], fmt)
        ext = "txt" if media.startswith("text") else "json"
        return Response(
            text,
            media_type=media,
            headers={"content-disposition": f'attachment; filename="callbreak-{request.path_params["id"]}.{ext}"'},
        )

    @guard
    async def practice(request: Request) -> Response:
        if not the_hub.allow_create(_client_ip(request)):
            return _too_many("too many tables from here; wait a little", the_hub.config.create_rate)
        body = await read(request, Practice)
        t, seat, token = the_hub.practice(request.path_params["id"], body.deal, body.step, body.name)
        return seat_answer(t, seat, token)

    @guard
    async def analysis(request: Request) -> Response:
        return answer(the_hub.analysis(request.path_params["id"], start=request.method == "POST"))

    @guard
    async def matches(request: Request) -> Response:
        if request.method == "POST":  # (the page's way: tokens in a URL are kept in proxies' logs)
            tokens = (await read(request, MatchTokens)).tokens
        else:  # pages of before
            tokens = [t for t in request.query_params.get("token", "").split(",") if t][:50]
        return answer(msgspec.convert({"matches": the_hub.matches(tokens)}, Matches))

    warned_upgrade = [-float("inf")]

    async def ws_over_plain_http(request: Request) -> Response:
        # A table's socket asked for without the WebSocket upgrade: a proxy that does not pass the
        # Upgrade and Connection headers. Said to the client, and to the operator (once a minute).
        now = time.monotonic()
        if now - warned_upgrade[0] >= 60:
            warned_upgrade[0] = now
            upgrade, connection = request.headers.get("upgrade"), request.headers.get("connection")
            cause = (
                "the upgrade reached this server but was not taken (is the websockets package installed?)"
                if (upgrade or "").lower() == "websocket"
                else "a proxy in front of this server drops the WebSocket upgrade; pass the Upgrade and "
                "Connection headers (deploy/nginx/callbreak.conf)"
            )
            log.warning(
                "a plain HTTP %s to %s (Upgrade: %r, Connection: %r): %s",
                request.method, request.url.path, upgrade, connection, cause,
            )
        response = _error("upgrade_required", "this is a WebSocket: the request needs Upgrade: websocket")
        response.headers["Upgrade"] = "websocket"
        return response

    async def ws(websocket: WebSocket) -> None:
        # admitted already (its address's limits): `Admission`, in front of everything else
        await websocket.accept(subprotocol=handshake(websocket.scope)[0])
        await _serve_socket(websocket)

    async def _serve_socket(websocket: WebSocket) -> None:
        async def close_socket(code: int, reason: str) -> None:
            # the peer may be gone already (or the socket aborted): then there is nothing to close
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.close(code, reason)

        try:
            conn = the_hub.open(
                websocket.path_params["id"],
                handshake(websocket.scope)[1] or websocket.query_params.get("token"),
                websocket.send_text,
                close_socket,
                abort_of(websocket.scope),
            )
        except TableError as e:
            await websocket.send_text(encode(Error(ErrorCode(e.code), e.message)))
            await websocket.close(code=4404 if e.code == "no_table" else 4403)
            return
        except StoreUnavailable:  # (said in the log once, by the store's `Outage`): the page tries again
            await websocket.close(code=1013, reason="the database does not answer: try again later")
            return
        writer = asyncio.get_running_loop().create_task(conn.writer())
        try:
            # read until the disconnect (the peer's close, an abort, or at once after a close of
            # ours); a closed connection's messages are not handled
            while True:
                try:
                    message = await websocket.receive()
                except (WebSocketDisconnect, RuntimeError):  # (Starlette's, reading a socket gone)
                    break
                if message["type"] == "websocket.disconnect":
                    break
                if conn.closed:
                    continue
                data = message.get("text")
                if data is None:
                    data = message.get("bytes")
                await the_hub.on_message(conn, data)  # (a fault of its own is raised, and logged)
        finally:
            the_hub.gone(conn)
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await writer  # it ends once its queue and close frame are sent, or the socket is aborted

    routes: list[Any] = [Route(path, page) for path in SHELL]
    routes += [
        Route("/healthz", healthz),
        Route("/sw.js", sw),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{id}", table_info),
        Route("/api/tables/{id}/start", start, methods=["POST"]),
        Route("/api/tables/{id}/rematch", rematch, methods=["POST"]),
        Route("/api/tables/{id}/history", history),
        Route("/api/tables/{id}/analysis", analysis, methods=["GET", "POST"]),
        Route("/api/tables/{id}/practice", practice, methods=["POST"]),
        Route("/api/join/{code}", join_info),
        Route("/api/join/{code}", join, methods=["POST"]),
        Route("/api/matches", matches, methods=["GET", "POST"]),
        WebSocketRoute("/ws/{id}", ws),
        Route("/ws/{id}", ws_over_plain_http),
        Route("/static/i18n/{name}", catalogue),
        Mount("/static", AppFiles(directory=static, check_dir=False), name="static"),
    ]
    if cfg.test_hooks:
        from .testhooks import hook_routes

        if not isinstance(the_hub.clock, ManualClock):
            raise ValueError("test_hooks needs a hub on a ManualClock")
        routes += hook_routes(the_hub, the_hub.clock)
    if the_hub.seeds.seeded and the_hub.config.test_reseed:  # tests only: start the stream again
        from .seeding import seed_route

        routes.append(seed_route(the_hub.seeds))
    # ExposeAbort outermost: it sees the ASGI server's own `send` (see `transport`)
    async def unavailable(request: Request, exc: Exception) -> Response:
        # the database does not answer (the store's `Outage` logs it once, with the driver's words):
        # nothing changed. The client is not told the database's address or its driver's error.
        response = _error("unavailable", UNAVAILABLE)
        response.headers["Retry-After"] = "2"
        return response

    app = _App(
        the_hub,
        routes=routes,
        lifespan=lifespan,
        # GZip innermost: the page's code, style and words compressed (229 KB before the home page
        # could be tapped, 10 to 12 s on a slow phone's link: a newcomer's try); a small answer
        # (an API's, most are) goes as it is, and a WebSocket passes by; level 6: a quarter of level
        # 9's time on the event loop for 2 % more bytes (a reviewer's measure)
        middleware=[Middleware(ExposeAbort), Middleware(SecurityHeaders), Middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)],
        exception_handlers={StoreUnavailable: unavailable},
    )
    app.state.hub = the_hub
    return app
