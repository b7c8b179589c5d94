"""Test hooks of a real server process: a clock the test moves, and counters it reads.

**For tests only.** With ``test_hooks`` on (``CALLBREAK_TEST_HOOKS=1``), ``callbreak serve``
runs its hub on a `ManualClock` (no timer fires until a test moves time) and serves, besides
its usual routes:

- ``POST /test/clock`` ``{"advance": seconds}``: move time on, running every timer due by then
  (turn timers, bots' delays, between rounds, sweeps); the answer is the clock and the version
  of every loaded table (`ClockAnswer`), so the test can wait until its clients have read
  up to them;
- ``GET /test/counters``: work done so far (`Counters`): log entries visited by catch-ups, hints
  worked out and waiting (and the child processes that worked them out), whether the hard kernel
  is loaded, the tables loaded in memory;
- ``POST /test/hints`` ``{"hold": true|false}``: occupy the hint pool's threads with a wait (or
  let them go), so a test can show what happens while hints queue.

A production server never has them: the option is off by default, no page links to them, and
``serve`` prints a warning when it is on.

>>> from callbreak.server.clock import ManualClock
>>> [r.path for r in hook_routes(None, ManualClock())]  # type: ignore[arg-type]
['/test/clock', '/test/counters', '/test/hints']
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..bots.warmup import KERNEL
from .clock import ManualClock

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Advance", "ClockAnswer", "Counters", "Hold", "hook_routes"]

#: a bound on one request's move of time (a sweep runs every 15 s: a day is plenty)
MAX_ADVANCE = 86_400.0


class Advance(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /test/clock``: seconds to move the clock on.

    >>> msgspec.json.decode(b'{"advance": 2.5}', type=Advance), msgspec.json.decode(b"{}", type=Advance)
    (Advance(advance=2.5), Advance(advance=0.0))
    """

    advance: float = msgspec.field(default=0.0)


class ClockAnswer(msgspec.Struct):
    """The clock after the move, and each loaded table's version.

    >>> clock = ManualClock(start=1000.0); clock.advance(2.5)
    >>> msgspec.json.encode(ClockAnswer(clock.monotonic(), clock.time(), {"k3Xa9Q": 12}))
    b'{"monotonic":2.5,"time":1002.5,"tables":{"k3Xa9Q":12}}'
    """

    monotonic: float
    time: float
    tables: dict[str, int]


class Counters(msgspec.Struct):
    """Work done so far by the process.

    >>> msgspec.json.encode(Counters({"k3Xa9Q": 3}, 1, 0, [4242], False, ["k3Xa9Q"]))
    b'{"catchup_work":{"k3Xa9Q":3},"hints_computed":1,"hints_pending":0,"hint_children":[4242],"kernel_ready":false,"loaded":["k3Xa9Q"]}'
    """

    catchup_work: dict[str, int]
    hints_computed: int
    hints_pending: int
    #: the process ids of the hint children that have answered (`Hints.children`)
    hint_children: list[int]
    #: whether this process's hard kernel is loaded
    kernel_ready: bool
    loaded: list[str]


class Hold(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /test/hints``: occupy (true) or free (false) every hint thread.

    >>> msgspec.json.decode(b'{"hold": true}', type=Hold)
    Hold(hold=True)
    >>> try:
    ...     msgspec.json.decode(b'{"hold": true, "for": 5}', type=Hold)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Object contains unknown field `for`
    """

    hold: bool


def _bad(message: str) -> Response:
    return JSONResponse({"error": "bad_json", "message": message}, status_code=400)


def hook_routes(hub: Hub, clock: ManualClock) -> list[Route]:
    """The ``/test/*`` routes for ``hub``, whose clock is ``clock``.

    >>> import asyncio, httpx
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> from starlette.applications import Starlette
    >>> clock = ManualClock(start=1000.0)
    >>> hub = Hub(ServerConfig(db=":memory:"), clock=clock)
    >>> app = Starlette(routes=hook_routes(hub, clock))
    >>> async def post(path, body):
    ...     async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t") as client:
    ...         r = await client.post(path, json=body)
    ...         return r.status_code, r.json()
    >>> asyncio.run(post("/test/clock", {"advance": 1.5}))
    (200, {'monotonic': 1.5, 'time': 1001.5, 'tables': {}})
    >>> asyncio.run(post("/test/clock", {"advance": -1}))
    (400, {'error': 'bad_json', 'message': 'advance must be between 0 and 86400 seconds'})
    >>> hub.store.close(); hub.hints.close()
    """
    gate = threading.Event()
    gate.set()

    async def move(request: Request) -> Response:
        try:
            body = msgspec.json.decode(await request.body() or b"{}", type=Advance)
        except msgspec.ValidationError as e:
            return _bad(str(e))
        except msgspec.DecodeError:
            return _bad("the body must be a JSON object")
        if not 0 <= body.advance <= MAX_ADVANCE:
            return _bad(f"advance must be between 0 and {MAX_ADVANCE:g} seconds")
        clock.advance(body.advance)
        answer = ClockAnswer(clock.monotonic(), clock.time(), {tid: t.state.v for tid, t in hub.tables.items()})
        return Response(msgspec.json.encode(answer), media_type="application/json")

    async def counters(request: Request) -> Response:
        answer = Counters(
            {tid: t.catchup_work for tid, t in hub.tables.items()},
            hub.hints.computed,
            hub.hints.pending(),
            sorted(hub.hints.children),
            KERNEL.ready,
            sorted(hub.tables),
        )
        return Response(msgspec.json.encode(answer), media_type="application/json")

    async def hints(request: Request) -> Response:
        nonlocal gate
        try:
            body = msgspec.json.decode(await request.body(), type=Hold)
        except (msgspec.ValidationError, msgspec.DecodeError) as e:
            return _bad(str(e))
        if body.hold and gate.is_set():
            gate = threading.Event()
            for _ in range(hub.config.hint_workers):
                hub.hints.executor.submit(gate.wait, 600)
        elif not body.hold:
            gate.set()
        return JSONResponse({"held": body.hold})

    return [
        Route("/test/clock", move, methods=["POST"]),
        Route("/test/counters", counters),
        Route("/test/hints", hints, methods=["POST"]),
    ]
