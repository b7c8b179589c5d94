"""The deployment's nginx refuses floods from one address (429, the server's own error answer)
before they reach a server process, while a player already at a table plays on."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import orjson
import websockets

from callbreak.server.config import ServerConfig

from ..server.conftest import Client, Server, play_until
from .procs import SITE, Nginx

QUICK1 = {"preset": "quick", "rounds": 1, "card_seconds": 60, "call_seconds": 60}


class Front:
    """nginx's address, for the test client (which reads ``ws_base``)."""

    def __init__(self, nginx: Nginx) -> None:
        self.base = nginx.base
        self.ws_base = nginx.ws_base


async def test_a_socket_flood_from_one_address_gets_429_from_nginx_while_a_seated_player_plays_on(
    make_server: Callable[..., Server],
) -> None:
    # the server itself limits no new sockets here (CALLBREAK_CONNECT_RATE=0): a 429 is nginx's
    server = make_server()
    nginx = Nginx([server.port])
    try:
        made = httpx.post(nginx.base + "/api/tables", json={"rules": QUICK1, "bots": "random", "name": "Asha",
                                                           "play_now": True}, timeout=30).json()
        p = Client(Front(nginx), made["table"], made["token"])  # type: ignore[arg-type]
        await p.connect()
        await p.wait(lambda c: c.info is not None, timeout=30)
        v0 = p.v
        stop = asyncio.Event()
        accepted, refused, other = [0], [], []
        url = f"{nginx.ws_base}/ws/{made['table']}"  # a spectator's socket, again and again

        async def flood() -> None:
            while not stop.is_set():
                try:
                    ws = await websockets.connect(url)
                except websockets.InvalidStatus as e:
                    refused.append((e.response.status_code, e.response.headers.get("server", ""), e.response.body))
                    continue
                except (OSError, websockets.WebSocketException) as e:
                    other.append(repr(e))
                    continue
                accepted[0] += 1
                await ws.close()

        loop = asyncio.get_running_loop()
        t0 = loop.time()
        floods = [loop.create_task(flood()) for _ in range(10)]
        try:
            # the player plays its turns through the flood: 16 more events of its table
            await play_until([p], lambda: p.v >= v0 + 16 and len(refused) >= 200, timeout=90)
        finally:
            stop.set()
            await asyncio.gather(*floods)
        elapsed = loop.time() - t0
        assert not p.closed and other == []
        # nginx let through at most its burst and rate (60, 2 a second) and refused the rest itself
        assert accepted[0] <= 60 + 2 * elapsed + 1, (accepted[0], elapsed)
        assert {(status, server_name.split("/")[0]) for status, server_name, _ in refused} == {(429, "nginx")}
        assert {orjson.loads(body)["error"] for _, _, body in refused} == {"rate_limited"}
        # and the table still answers the seated player
        v1 = p.v
        await play_until([p], lambda: p.v > v1 or (p.info is not None and p.info["status"] == "over"), timeout=30)
        await p.close()
    finally:
        nginx.stop()


def _limits(text: str) -> dict[str, str]:
    found = {
        "rate": re.search(r"limit_req_zone \$callbreak_ws_addr zone=callbreak_ws:\S+ rate=(\S+);", text),
        "burst": re.search(r"limit_req zone=callbreak_ws burst=(\d+) nodelay;", text),
        "open": re.search(r"limit_conn callbreak_ws_open (\d+);", text),
    }
    missing = [k for k, m in found.items() if m is None]
    assert not missing, f"no WebSocket limit {missing} in the site"
    return {k: m.group(1) for k, m in found.items() if m is not None}


def test_no_client_gets_past_the_servers_limits_with_an_address_it_made_up(make_server: Callable[..., Server]) -> None:
    """The site passes the client's own address alone in X-Forwarded-For (found in a review: it
    appended to the client's header, and a server trusting any proxy, as compose's do, took the
    made-up address at its left): five tables asked for by one client under five made-up
    addresses meet the limit of three."""
    server = make_server({"CALLBREAK_CREATE_RATE": "0.01", "CALLBREAK_CREATE_BURST": "3", "FORWARDED_ALLOW_IPS": "*"})
    nginx = Nginx([server.port])
    try:
        codes = [
            httpx.post(nginx.base + "/api/tables", json={"bots": "random"}, headers={"X-Forwarded-For": f"10.9.8.{i}"},
                       timeout=30).status_code
            for i in range(5)
        ]  # fmt: skip
        assert codes == [200, 200, 200, 429, 429], codes
        # and another client (another source address) is itself to the servers: not limited
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
            assert other.post(nginx.base + "/api/tables", json={"bots": "random"}, timeout=30).status_code == 200
    finally:
        nginx.stop()


def test_the_sites_websocket_limits_are_the_servers_own() -> None:
    """nginx's per-address WebSocket limits are the server's defaults (docs/protocol.md), a second
    copy of them held to the first here; the compose site is the same site."""
    cfg = ServerConfig()
    assert _limits(SITE.read_text()) == {
        "rate": f"{cfg.connect_rate:g}r/s",
        "burst": str(cfg.connect_burst),
        "open": str(cfg.max_sockets_per_ip),
    }

    def body(path: Path) -> list[str]:
        # all but the leading comment and the upstream's `server` lines
        lines = path.read_text().splitlines()
        start = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
        return [line for line in lines[start:] if not re.match(r"^    server \S+:\d+ ", line)]

    assert body(SITE) == body(SITE.with_name("compose.conf"))



def test_the_sites_wait_for_a_plain_request_outlasts_the_servers_own_waits() -> None:
    """A review's find: nginx gave a plain request 10 s, while a server process waits by design up
    to 11 s for a table's process to be found (its lease moving) and 10 s for a database batch:
    nginx's 504 came before the server's own answer. The site's wait outlasts both, and a read is
    tried on at most one more process (a slow database is not asked N times over)."""
    from callbreak.server.router import route_wait
    from callbreak.server.writebehind import WAIT_LIMIT

    text = SITE.read_text()
    plain = text[text.index("    location / {") :]
    plain = plain[: plain.index("\n    }\n")]
    wait = re.search(r"proxy_read_timeout (\d+)s;", plain)
    assert wait is not None
    assert int(wait.group(1)) > max(route_wait(ServerConfig().lease_ttl), WAIT_LIMIT)
    assert "proxy_next_upstream_tries 2;" in plain and "proxy_read_timeout 3600s" not in plain
