"""Seat anyone's HTTP bot (Bhoos tournament protocol) at our tables.

`RemoteBot` is a `Bot`: its `act` sends the seat's request (built from the
seat's view alone, so no hidden card ever leaves), waits at most what is left
of the round's time budget, and checks the answer.  A late, illegal, malformed
or failed answer is replaced by the lowest legal card (or the lowest call), and
the fault is recorded in `faults`; the game goes on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..bots import Bot, make_bot
from ..cards import Card
from ..extras import need
from ..round import SeatView, lowest_action
from .codec import DEFAULT_IDS, parse_response, view_to_request, why_illegal_bhoos

__all__ = ["Fault", "RemoteBot", "fallback_action", "resolve_bot"]


@dataclass(frozen=True, slots=True)
class Fault:
    """One bad answer: ``kind`` is ``timeout``, ``illegal``, ``malformed`` or ``error``.

    >>> f = Fault("timeout", 2, "no answer within 1.55 s")
    >>> f.to_dict()
    {'kind': 'timeout', 'round': 2, 'detail': 'no answer within 1.55 s'}
    """

    kind: str
    round: int
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "round": self.round, "detail": self.detail}


def fallback_action(view: SeatView) -> int | Card:
    """What a seat does when its bot fails: `callbreak.round.lowest_action`, the same
    lowest legal call or card as the online tables' turn timer.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> fallback_action(m.view(m.to_act))
    1
    """
    return lowest_action(view)


class RemoteBot(Bot):
    """A bot that lives behind ``url`` and speaks the Bhoos tournament protocol.

    ``time_budget`` is seconds per round (the call and thirteen cards together,
    default 1.5 as in the tournament); ``grace`` is how much longer than the
    budget the answer may take to travel before it counts as late.
    ``player_ids`` are the ids sent as ``playerIds`` (seat order).

    >>> import socket
    >>> from callbreak import Match
    >>> closed = socket.socket(); closed.bind(("127.0.0.1", 0))   # a port nobody listens on
    >>> bot = RemoteBot(f"http://127.0.0.1:{closed.getsockname()[1]}", time_budget=1.5, connect_timeout=0.5)
    >>> m = Match(seed=1)
    >>> view = m.view(m.to_act)
    >>> bot.act(view) == fallback_action(view), [f.kind for f in bot.faults], bot.decisions
    (True, ['error'], 1)
    >>> bot.close(); closed.close()
    """

    name = "remote"

    def __init__(
        self,
        url: str,
        time_budget: float = 1.5,
        seed: int | None = None,
        *,
        player_ids: Sequence[str] = DEFAULT_IDS,
        grace: float = 0.05,
        connect_timeout: float = 2.0,
    ) -> None:
        super().__init__(seed)
        self.url = url.rstrip("/")
        self.name = self.url
        self.time_budget = float(time_budget)
        self.grace = float(grace)
        self.player_ids = tuple(player_ids)
        self.faults: list[Fault] = []
        self.decisions = 0
        self._connect_timeout = connect_timeout
        need("a remote bot", "remote")
        import httpx

        self._client = httpx.Client(
            timeout=httpx.Timeout(time_budget + grace, connect=connect_timeout),
            limits=httpx.Limits(max_keepalive_connections=4, keepalive_expiry=60.0),
            headers={"Content-Type": "application/json"},
        )
        self._round_key: tuple[object, ...] | None = None
        self._spent = 0.0

    # --- the round's time budget ------------------------------------------------
    def _round_of(self, view: SeatView) -> tuple[object, ...]:
        mine = [c for t in view.tricks for c in (t.cards[(view.seat - t.leader) % 4],)]
        return (view.round_number, view.dealer, frozenset(view.hand) | frozenset(mine))

    def time_left(self, view: SeatView) -> float:
        """Seconds of the round's budget this seat has left."""
        key = self._round_of(view)
        if key != self._round_key:
            self._round_key = key
            self._spent = 0.0
        return self.time_budget - self._spent

    # --- acting -------------------------------------------------------------
    def act(self, view: SeatView) -> int | Card:
        left = self.time_left(view)
        self.decisions += 1
        path, body = view_to_request(view, self.player_ids, max(0, int(left * 1000)))
        fallback = fallback_action(view)
        if left <= 0:
            self._fault("timeout", view, "no time left in the round's budget")
            return fallback
        import httpx

        t0 = time.perf_counter()
        try:
            resp = self._client.post(
                self.url + path,
                json=body,
                timeout=httpx.Timeout(
                    left + self.grace, connect=min(self._connect_timeout, left + self.grace)
                ),
            )
        except httpx.TimeoutException:
            self._spent += time.perf_counter() - t0
            self._fault("timeout", view, f"no answer within {left * 1000:.0f} ms")
            return fallback
        except httpx.HTTPError as e:
            self._spent += time.perf_counter() - t0
            self._fault("error", view, f"{type(e).__name__}: {e}")
            return fallback
        took = time.perf_counter() - t0
        self._spent += took
        if took > left + self.grace:
            self._fault(
                "timeout", view, f"answered after {took * 1000:.0f} ms with {left * 1000:.0f} ms left"
            )
            return fallback
        if resp.status_code != 200:
            self._fault("error", view, f"HTTP {resp.status_code}: {resp.text[:200]}")
            return fallback
        try:
            choice = parse_response(path, resp.json())
        except ValueError as e:
            self._fault("malformed", view, str(e)[:200])
            return fallback
        if view.phase == "calling":
            if choice not in view.legal_calls:
                self._fault(
                    "illegal",
                    view,
                    f"called {choice}; legal calls are {min(view.legal_calls)}..{max(view.legal_calls)}",
                )
                return fallback
            return choice
        if choice not in view.legal_cards:  # (in the engine's words, as a bot in the process is told)
            self._fault("illegal", view, f"{choice.bhoos if isinstance(choice, Card) else choice}: {why_illegal_bhoos(view, choice)}")
            return fallback
        return choice

    def _fault(self, kind: str, view: SeatView, detail: str) -> None:
        self.faults.append(Fault(kind, view.round_number, detail))

    def hello(self, timeout: float = 2.0) -> bool:
        """Whether ``GET /hi`` answers ``{"value": "hello"}``."""
        import httpx

        try:
            r = self._client.get(self.url + "/hi", timeout=timeout)
            return r.status_code == 200 and r.json() == {"value": "hello"}
        except (httpx.HTTPError, ValueError):
            return False

    def wait_ready(self, timeout: float = 30.0) -> bool:
        """Poll ``/hi`` until it says hello (the tournament does this before a match)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.hello(timeout=min(2.0, max(0.1, end - time.monotonic()))):
                return True
            time.sleep(0.05)
        return False

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._round_key = None
        self._spent = 0.0

    def close(self) -> None:
        self._client.close()


def resolve_bot(spec: str, seed: int | None = None, time_budget: float = 1.5) -> Bot:
    """A bot from a spec: a level name or an ``http(s)://`` URL of a Bhoos-protocol bot.

    Wherever a bot can sit (the arena, an online table), a URL can sit.

    >>> resolve_bot("random", 1).name
    'random'
    >>> resolve_bot("http://127.0.0.1:7001").url
    'http://127.0.0.1:7001'
    >>> resolve_bot("127.0.0.1:7001")
    Traceback (most recent call last):
    ...
    ValueError: unknown bot level '127.0.0.1:7001': a bot over HTTP is named by its URL, http://127.0.0.1:7001
    >>> resolve_bot("mine.py")
    Traceback (most recent call last):
    ...
    ValueError: unknown bot level 'mine.py': a bot in a Python file is named FILE.py:CLASS, mine.py:MyBot
    """
    if spec.startswith(("http://", "https://")):
        return RemoteBot(spec, time_budget=time_budget, seed=seed)
    if re.fullmatch(r"[\w.-]+:\d{1,5}(/\S*)?", spec):  # host:port, the scheme forgotten
        raise ValueError(f"unknown bot level {spec!r}: a bot over HTTP is named by its URL, http://{spec}")
    if spec.endswith(".py"):  # a file, its class forgotten
        raise ValueError(f"unknown bot level {spec!r}: a bot in a Python file is named FILE.py:CLASS, {spec}:MyBot")
    return make_bot(spec, seed)
