"""Security headers on every HTTP response (an ASGI middleware).

The Content-Security-Policy lets the web client load only its own scripts, styles,
images (and ``data:`` images), manifest and service worker, connect only to its own
origin (and WebSockets), and never be framed; the client sets styles only through
``element.style`` (CSSOM), which the policy allows, never inline ``<style>`` or ``style=""``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "SECURITY_HEADERS", "SecurityHeaders"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; manifest-src 'self'; worker-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

_RAW = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]


class SecurityHeaders:
    """Add `SECURITY_HEADERS` to every HTTP response of ``app`` (WebSockets pass through).

    >>> import asyncio
    >>> from starlette.responses import PlainTextResponse
    >>> sent = []
    >>> async def send(message):
    ...     sent.append(message)
    >>> app = SecurityHeaders(PlainTextResponse("hello"))
    >>> asyncio.run(app({"type": "http", "method": "GET", "path": "/", "headers": []}, None, send))
    >>> headers = dict(sent[0]["headers"])
    >>> headers[b"x-content-type-options"], headers[b"content-security-policy"].startswith(b"default-src 'self'")
    (b'nosniff', True)
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in _RAW if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
