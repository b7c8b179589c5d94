"""What one client may cost a real server process: security headers on every response,
time-outs for sockets that never finish their request or never say hello, and a cap on
WebSockets per client address."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time

import orjson
import websockets

from .conftest import Server


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` (EOF or reset) within ``seconds``; reads whatever it sends."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except ConnectionError:
            return True
    return False


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; manifest-src 'self'; worker-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def test_every_http_response_carries_the_security_headers(server: Server) -> None:
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="A")
    answers = {
        "/": server.get("/"),
        "/t/x": server.get(f"/t/{made['table']}"),
        "/static/app.js": server.get("/static/app.js"),
        "/static/style.css": server.get("/static/style.css"),
        "/static/missing.js": server.get("/static/missing.js"),
        "/api/tables/ID": server.get(f"/api/tables/{made['table']}"),
        "/api/tables/none": server.get("/api/tables/nonexistent"),
        "POST /api/tables": server.post("/api/tables", {"bots": "nobody"}),
        "/sw.js": server.get("/sw.js"),
        "/healthz": server.get("/healthz"),
    }
    assert answers["/"].status_code == 200 and answers["/api/tables/none"].status_code == 404
    assert answers["POST /api/tables"].status_code == 400
    for what, r in answers.items():
        assert r.headers.get("content-security-policy") == CSP, what
        assert r.headers.get("x-content-type-options") == "nosniff", what
        assert r.headers.get("referrer-policy") == "same-origin", what
    # the service worker keeps its own headers beside them
    assert answers["/sw.js"].headers["cache-control"] == "no-cache"


def test_a_request_whose_headers_never_finish_is_closed_after_the_header_timeout(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_HEADER_TIMEOUT": "1", "CALLBREAK_KEEP_ALIVE": "1"})
    partial = socket.create_connection(("127.0.0.1", server.port))
    partial.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    silent = socket.create_connection(("127.0.0.1", server.port))
    # a socket that finished one request and then holds the connection idle
    idle = socket.create_connection(("127.0.0.1", server.port))
    idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        for s in (partial, silent, idle):
            assert _closed_within(s, 30), "the server still holds the socket"
        # the server still answers others
        assert server.get("/healthz").status_code == 200
    finally:
        for s in (partial, silent, idle):
            s.close()


def test_a_header_larger_than_the_limit_is_refused(server: Server) -> None:
    s = socket.create_connection(("127.0.0.1", server.port))
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        s.settimeout(10)
        answer = b""
        with contextlib.suppress(ConnectionError):
            while chunk := s.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400") or answer.startswith(b"HTTP/1.1 431") or answer == b"", answer[:80]
        assert b"200 OK" not in answer
    finally:
        s.close()


async def test_a_websocket_that_never_says_hello_is_closed_with_an_error(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_HELLO_TIMEOUT": "1"})
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="A")
    ws = await websockets.connect(f"{server.ws_base}/ws/{made['table']}?token={made['token']}")
    got = orjson.loads(await asyncio.wait_for(ws.recv(), 30))
    assert got["type"] == "error" and got["code"] == "no_hello", got
    await asyncio.wait_for(ws.wait_closed(), 30)
    assert ws.close_code == 4408
    # one that says hello in time stays
    ok = await websockets.connect(f"{server.ws_base}/ws/{made['table']}?token={made['token']}")
    await ok.send(orjson.dumps({"type": "hello", "since": 0}).decode())
    assert orjson.loads(await ok.recv())["type"] == "snapshot"
    await ok.send(orjson.dumps({"type": "ping", "ref": "late"}).decode())
    while (m := orjson.loads(await asyncio.wait_for(ok.recv(), 30)))["type"] != "pong":
        pass
    assert m["ref"] == "late"
    await ok.close()


async def test_websockets_per_address_are_capped(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_MAX_SOCKETS_PER_IP": "3"})
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="A")
    url = f"{server.ws_base}/ws/{made['table']}"
    held = [await websockets.connect(url) for _ in range(3)]
    for ws in held:
        await ws.send(orjson.dumps({"type": "hello", "since": 0}).decode())
        assert orjson.loads(await ws.recv())["type"] == "snapshot"
    extra = await websockets.connect(url)
    refused = orjson.loads(await asyncio.wait_for(extra.recv(), 30))
    assert refused["type"] == "error" and refused["code"] == "too_many_connections", refused
    await asyncio.wait_for(extra.wait_closed(), 30)
    assert extra.close_code == 4429
    # one closes: the address may open another (once the server has seen the close)
    await held.pop().close()
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        again = await websockets.connect(url)
        await again.send(orjson.dumps({"type": "hello", "since": 0}).decode())
        first = orjson.loads(await asyncio.wait_for(again.recv(), 30))
        if first["type"] == "snapshot":
            break
        assert first["code"] == "too_many_connections"
        assert asyncio.get_running_loop().time() < deadline, "the closed socket was never counted off"
        await again.close()
        await asyncio.sleep(0.05)
    for ws in [*held, again]:
        await ws.close()
    health = server.get("/healthz").json()
    assert health["ok"]


async def test_new_websockets_per_address_are_rate_limited(make_server) -> None:  # type: ignore[no-untyped-def]
    from .driven import DRIVEN, advance

    server: Server = make_server(DRIVEN | {"CALLBREAK_CONNECT_RATE": "1", "CALLBREAK_CONNECT_BURST": "3"})
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="A")
    url = f"{server.ws_base}/ws/{made['table']}"

    async def first_message() -> dict[str, object]:
        """The first message of a new socket, or the HTTP answer refusing its handshake."""
        try:
            ws = await websockets.connect(url)
        except websockets.InvalidStatus as e:
            assert e.response.status_code == 429
            return {"http": 429, **orjson.loads(e.response.body or b"{}")}
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(orjson.dumps({"type": "hello", "since": 0}).decode())
        m = orjson.loads(await asyncio.wait_for(ws.recv(), 30))
        await ws.close()
        return dict(m)

    # a burst of three (each opened and closed): then refused at the handshake, however few are open
    for _ in range(3):
        assert (await first_message())["type"] == "snapshot"
    refused = await first_message()
    assert refused["http"] == 429 and refused["error"] == "rate_limited", refused
    assert server.get(f"/api/tables/{made['table']}").json()["table"]["spectators"] == 0
    # a second later (the server's clock), one more
    await advance(server, 1.0)
    assert (await first_message())["type"] == "snapshot"
    assert (await first_message())["error"] == "rate_limited"


async def test_new_websockets_are_limited_per_forwarded_address_and_refused_quietly(make_server) -> None:  # type: ignore[no-untyped-def]
    """Behind a proxy (``X-Forwarded-For`` from 127.0.0.1, which uvicorn trusts) each client's
    address has its own rate of new sockets, refused with the same 429 as a direct client's; and
    no refusal writes a line to the server's log."""
    from .driven import DRIVEN

    server: Server = make_server(DRIVEN | {"CALLBREAK_CONNECT_RATE": "1", "CALLBREAK_CONNECT_BURST": "3"})
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="A")
    url = f"{server.ws_base}/ws/{made['table']}"

    async def handshake(forwarded_for: str | None) -> int:
        """101 (then closed at once), or the status refusing the handshake (its body checked)."""
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
        try:
            ws = await websockets.connect(url, additional_headers=headers)
        except websockets.InvalidStatus as e:
            assert orjson.loads(e.response.body or b"{}")["error"] == "rate_limited"
            assert e.response.headers["content-type"] == "application/json"
            return int(e.response.status_code)
        await ws.close()
        return 101

    # one client behind the proxy uses up its burst; another behind it, and a direct one, still get in
    assert [await handshake("203.0.113.7") for _ in range(5)] == [101, 101, 101, 429, 429]
    assert await handshake("198.51.100.2") == 101
    assert [await handshake(None) for _ in range(5)] == [101, 101, 101, 429, 429]
    out = server.stop()
    assert "handshake" not in out and "Traceback" not in out, out


def test_a_status_port_reaches_the_same_process(make_server) -> None:  # type: ignore[no-untyped-def]
    import httpx

    from .conftest import free_port

    status = free_port()
    server: Server = make_server(args=["--status-port", str(status)])
    main = server.get("/healthz").json()
    other = httpx.get(f"http://127.0.0.1:{status}/healthz", timeout=10).json()
    assert main["pid"] == other["pid"] and server.proc is not None and main["pid"] == server.proc.pid
    assert httpx.get(f"http://127.0.0.1:{status}/readyz", timeout=10).json()["ready"] is True
    # the probes only: no table is made or played through it (it is not behind the proxy)
    made = httpx.post(f"http://127.0.0.1:{status}/api/tables", json={"bots": "random"}, timeout=10)
    assert made.status_code == 404 and server.get("/healthz").json()["tables"] == 0
    assert f"this process's /readyz and /metrics: http://127.0.0.1:{status}/" in server.stop()

