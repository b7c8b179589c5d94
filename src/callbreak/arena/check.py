"""A quick conformance check of an HTTP bot: health, legal answers, timing.

`check_bot` sends ``GET /hi`` and then real ``/bid`` and ``/play`` requests taken
from seeded matches, chosen to cover the edge cases (first and last caller, a
lead, following and heading, a void with and without trumps, a single legal
card, the last trick, a later round with points on the board), and checks that
each answer is well-formed and legal, and that at its median pace a round's 14 decisions
fit the round's time budget (a slow answer alone is a warning).

>>> from callbreak.remote.server import BotServer
>>> srv = BotServer("random", port=0); srv.start(); _ = srv.wait_ready()
>>> rep = check_bot(srv.url, positions=12)
>>> rep.ok, rep.failures
(True, [])
>>> srv.close()
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..bots import make_bot
from ..cards import Card
from ..match import Match
from ..remote.codec import parse_response, view_to_request, why_illegal_bhoos
from ..round import SeatView
from ..rules import Ruleset
from .stats import percentile

__all__ = ["ROUND_DECISIONS", "CheckReport", "CheckResult", "check_bot", "sample_positions"]

#: a seat's decisions in a round: its call and its 13 cards (a bot slower than the round's budget
#: over these, at its median pace, fails the check: the arena would play its fallback for it)
ROUND_DECISIONS = 14


@dataclass(slots=True)
class CheckResult:
    """One check of a remote bot: passed or not, what was seen, how long it took.

    >>> r = CheckResult("answers a call", ok=False, detail="HTTP 500", ms=12.5)
    >>> r.ok, r.severity, CheckResult("slow card", False, "1.9 s", severity="warn").severity
    (False, 'fail', 'warn')
    """

    name: str
    ok: bool
    detail: str
    ms: float | None = None
    severity: str = "fail"  # what a not-ok result counts as: "fail" or "warn"


@dataclass(slots=True)
class CheckReport:
    """Every check of the bot at ``url``; its failures (fatal) and warnings (not).

    >>> rep = CheckReport("http://127.0.0.1:8765")
    >>> rep.results += [CheckResult("answers a call", True, "3", 4.0), CheckResult("slow card", False, "1.9 s", severity="warn")]
    >>> [r.name for r in rep.failures], [r.name for r in rep.warnings]
    ([], ['slow card'])
    """

    url: str
    results: list[CheckResult] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if not r.ok and r.severity == "fail"]

    @property
    def warnings(self) -> list[CheckResult]:
        return [r for r in self.results if not r.ok and r.severity == "warn"]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "ok": self.ok,
            "results": [
                {"name": r.name, "ok": r.ok, "detail": r.detail, "ms": r.ms, "severity": r.severity}
                for r in self.results
            ],
            "p50_ms": percentile(self.times_ms, 50) if self.times_ms else None,
            "p99_ms": percentile(self.times_ms, 99) if self.times_ms else None,
        }


def _tags(view: SeatView) -> list[str]:
    tags: list[str] = []
    if view.phase == "calling":
        n = sum(1 for c in view.calls if c is not None)
        tags.append("first call" if n == 0 else "last call" if n == 3 else "call")
        if view.round_number > 1:
            tags.append("call, later round")
        return tags
    if not view.trick:
        tags.append("lead, first trick" if not view.tricks else "lead")
    else:
        led = view.trick[0][1].suit_index
        if any(c.suit_index == led for c in view.hand):
            tags.append("follow suit")
        elif any(c.suit_index == view.rules.trump_index for c in view.hand):
            tags.append("void, holding trump")
        else:
            tags.append("void, no trump")
        if len(view.trick) == 3:
            tags.append("last to play")
    if len(view.legal_cards) == 1:
        tags.append("one legal card")
    if len(view.tricks) == 12:
        tags.append("last trick")
    if view.round_number > 1:
        tags.append("later round")
    return tags


def sample_positions(rules: Ruleset, count: int, seed: int = 0) -> list[tuple[str, SeatView]]:
    """``count`` positions (label, view) from seeded matches of random bots, covering
    each edge case at least once before repeating any.

    >>> from callbreak import Ruleset
    >>> ps = sample_positions(Ruleset.preset("quick"), 6, seed=1)
    >>> len(ps), sorted({label for label, _ in ps}) == sorted(label for label, _ in ps)   # six edge cases, none twice
    (6, True)
    >>> ps == sample_positions(Ruleset.preset("quick"), 6, seed=1)
    True
    """
    rng = random.Random(seed)
    found: dict[str, list[SeatView]] = {}
    bots = [make_bot("random", seed + i) for i in range(4)]
    m = Match(rules.replace(rounds=2), seed=seed)
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        for t in _tags(v):
            found.setdefault(t, []).append(v)
        m.act(bots[seat].act(v))
    out: list[tuple[str, SeatView]] = []
    names = sorted(found)
    while len(out) < count and names:
        for name in names:
            pool = found[name]
            if pool and len(out) < count:
                out.append((name, pool.pop(rng.randrange(len(pool)))))
        names = [n for n in names if found[n]]
    return out


def check_bot(
    url: str,
    positions: int = 40,
    rules: Ruleset | None = None,
    seed: int = 0,
    time_budget: float = 1.5,
    timeout: float = 5.0,
) -> CheckReport:
    """Check the bot at ``url``; see the module's description.

    >>> import socket
    >>> closed = socket.socket(); closed.bind(("127.0.0.1", 0))   # a port nobody listens on
    >>> rep = check_bot(f"http://127.0.0.1:{closed.getsockname()[1]}", positions=4, timeout=1.0)
    >>> [r.name for r in rep.results], rep.failures[0].detail.split(":")[0]
    (['GET /hi'], 'ConnectError')
    >>> closed.close()
    """
    if rules is None:
        rules = Ruleset.preset("bhoos")
    url = url.rstrip("/")
    rep = CheckReport(url)
    per_decision = time_budget / ROUND_DECISIONS
    with httpx.Client(timeout=timeout) as client:
        t0 = time.perf_counter()
        try:
            r = client.get(url + "/hi")
            ms = 1000 * (time.perf_counter() - t0)
            ok = r.status_code == 200 and r.json() == {"value": "hello"}
            rep.results.append(CheckResult("GET /hi", ok, f"HTTP {r.status_code} {r.text[:80]}", ms))
        except (httpx.HTTPError, ValueError) as e:
            rep.results.append(CheckResult("GET /hi", False, f"{type(e).__name__}: {e}"))
            return rep
        for label, view in sample_positions(rules, positions, seed):
            # the round's budget as the seat has it then, its earlier decisions having taken their
            # share (a bot that spends a share of the time left looked slow at the round's last
            # cards when each was sent the whole budget: a reviewer's read)
            left = len(view.hand) + (view.phase == "calling")
            path, body = view_to_request(view, time_budget_ms=int(time_budget * 1000 * left / ROUND_DECISIONS))
            name = f"{path} {label}"
            t0 = time.perf_counter()
            try:
                r = client.post(url + path, json=body)
            except httpx.HTTPError as e:
                rep.results.append(CheckResult(name, False, f"{type(e).__name__}: {e}"))
                continue
            ms = 1000 * (time.perf_counter() - t0)
            rep.times_ms.append(ms)
            if r.status_code != 200:
                rep.results.append(CheckResult(name, False, f"HTTP {r.status_code}: {r.text[:120]}", ms))
                continue
            try:
                choice = parse_response(path, r.json())
            except ValueError as e:
                rep.results.append(CheckResult(name, False, f"malformed answer: {e}", ms))
                continue
            legal: tuple[object, ...] = view.legal_calls if view.phase == "calling" else view.legal_cards
            shown = choice.bhoos if isinstance(choice, Card) else str(choice)
            if choice not in legal:
                why = why_illegal_bhoos(view, choice)  # (in the bot's own notation: "1S", not "AS")
                allowed = " ".join(c.bhoos if isinstance(c, Card) else str(c) for c in legal)
                rep.results.append(CheckResult(name, False, f"illegal answer {shown!r}: {why} (legal: {allowed})", ms))
            elif ms > time_budget * 1000:
                rep.results.append(
                    CheckResult(name, False, f"{shown} after {ms:.0f} ms: over the round's budget", ms)
                )
            else:
                slow = ms > per_decision * 1000
                rep.results.append(
                    CheckResult(
                        name,
                        not slow,
                        f"{shown}"
                        + (f" (slow: over {per_decision * 1000:.0f} ms per decision)" if slow else ""),
                        ms,
                        "warn" if slow else "fail",
                    )
                )
        if rep.times_ms:  # (each slow answer is a warning; at the pace of most, a round outlasting its budget fails)
            p50 = percentile(rep.times_ms, 50)
            pace = p50 * ROUND_DECISIONS / 1000
            rep.results.append(
                CheckResult(
                    "a round within the budget",
                    pace <= time_budget,
                    f"p50 {p50:.0f} ms a decision: about {pace:.1f} s for a round's {ROUND_DECISIONS} decisions,"
                    f" the budget {time_budget:g} s",
                    p50,
                )
            )
        # A malformed request should get HTTP 400, but the tournament does not require it.
        try:
            r = client.post(url + "/play", json={"playerId": "P0"})
            ok = r.status_code == 400
            rep.results.append(
                CheckResult("malformed request → 400", ok, f"HTTP {r.status_code}", severity="warn")
            )
        except httpx.HTTPError as e:
            rep.results.append(CheckResult("malformed request → 400", False, str(e), severity="warn"))
        try:
            r = client.get(url + "/hi")
            rep.results.append(
                CheckResult("still alive after a bad request", r.status_code == 200, f"HTTP {r.status_code}")
            )
        except httpx.HTTPError as e:
            rep.results.append(CheckResult("still alive after a bad request", False, str(e)))
    return rep
