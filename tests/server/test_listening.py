"""`callbreak serve`'s listening socket (`workers.listening_socket`): the connections asyncio
accepts on it send small messages at once (TCP_NODELAY, which asyncio sets only on a socket
that says it is TCP), and an address in use is refused before anything is served."""

from __future__ import annotations

import asyncio
import socket

import pytest

from callbreak.server.workers import listening_socket


async def accepted_nodelay(sock: socket.socket) -> int:
    """TCP_NODELAY on a connection that the event loop accepts on ``sock``."""
    loop = asyncio.get_running_loop()
    made: asyncio.Future[asyncio.BaseTransport] = loop.create_future()

    class Keep(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            made.set_result(transport)

    server = await loop.create_server(Keep, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        transport = await asyncio.wait_for(made, 30)
        value = int(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()
        transport.close()
        return value
    finally:
        server.close()


async def test_connections_on_the_listening_socket_send_at_once() -> None:
    assert await accepted_nodelay(listening_socket("127.0.0.1", 0)) == 1


def test_an_address_in_use_is_refused() -> None:
    first = listening_socket("127.0.0.1", 0)
    try:
        with pytest.raises(OSError):
            listening_socket("127.0.0.1", first.getsockname()[1])
    finally:
        first.close()
