"""A WebSocket client by hand on a plain socket: it sends, and reads only when told to.

A hostile client that never reads cannot be made with a library client (they read in the
background), so the handshake and the frames are written here.
"""

from __future__ import annotations

import base64
import os
import socket
import struct

__all__ = ["RawSocket", "frame"]


def frame(text: str) -> bytes:
    """One masked text frame (a client's frames are masked)."""
    data = text.encode()
    n = len(data)
    head = bytes([0x81])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class RawSocket:
    """A WebSocket connection (the upgrade done) whose receive buffer is as small as the kernel allows."""

    def __init__(self, port: int, path: str, rcvbuf: int = 4096) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode(errors="replace"))
        self.alive = True

    def send(self, text: str) -> bool:
        """Send one text frame; False once the server has dropped the connection."""
        if not self.alive:
            return False
        try:
            self.sock.sendall(frame(text))
        except OSError:
            self.alive = False
        return self.alive

    def ended(self, timeout: float) -> bool:
        """Read (and discard) what the server sent until the connection ends; whether it
        ended (EOF or reset) within ``timeout`` seconds of silence."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
        except TimeoutError:
            return False
        except OSError:  # reset: the server aborted the connection
            return True
        return True

    def close(self) -> None:
        self.sock.close()

