"""Quick strength check: one bot against three copies of another, duplicate seats.

Each deal seed is played four times, the tested bot taking each seat in turn
(so the cards cancel out); reports its win share (ties split), mean points
per match and call-made rate, with a 95 % interval on the win share.

    python benchmarks/bots_duel.py medium easy --matches 40 --rules standard --jobs 2
    python benchmarks/bots_duel.py hard medium --rules bhoos --matches 100 --seed 9000 \
        --paired --base hard:refine=0,infer=8,call_refine=0,sd_scale=1.0   # new hard vs the old one

A bot is a level name or ``level:key=value,...`` (keyword arguments of its class), or
``served:`` and either: that bot asked through the tournament protocol, as ``callbreak bot
serve`` asks it (each decision from a reset bot, the match's earlier rounds remembered).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from callbreak import Card, Match, Ruleset, SeatView
from callbreak.bots import Bot, make_bot


class Served(Bot):
    """A bot asked through the Bhoos tournament protocol, as `callbreak bot serve` asks it:
    each view becomes the request's JSON, a `BotService` (in this process, without the
    socket) reads it back, resets the bot, hands it the seat's earlier rounds of the match
    it remembers (`Bot.recall`) and answers.  The time budget sent is too large to cap
    anything, so that the run stays seeded."""

    name = "served"

    def __init__(self, inner: Bot, seed: int) -> None:
        from callbreak.remote.server import BotService

        super().__init__(seed)
        self.service = BotService(inner, None, seed)
        self.name = f"served:{inner.name}"

    def act(self, view: SeatView) -> int | Card:
        from callbreak.remote.codec import parse_response, view_to_request

        self.service.rules = view.rules
        path, body = view_to_request(view, time_budget_ms=10**9)
        status, answer = self.service.handle("POST", path, json.dumps(body).encode())
        if status != 200:
            raise RuntimeError(f"the served bot answered {status}: {answer}")
        return parse_response(path, answer)


def build(spec: str, seed: int) -> Bot:
    """``level`` or ``level:key=value,...`` (keyword arguments of the bot class);
    ``served:SPEC``: that bot asked through the tournament protocol (`Served`)."""
    if spec.startswith("served:"):
        return Served(build(spec.removeprefix("served:"), seed), seed)
    if ":" not in spec:
        return make_bot(spec, seed=seed)
    level, _, params = spec.partition(":")
    bot = make_bot(level, seed=seed)
    kwargs: dict[str, Any] = {}
    for kv in params.split(","):
        k, _, v = kv.partition("=")
        kwargs[k] = float(v) if "." in v else int(v)
    return type(bot)(seed=seed, **kwargs)  # type: ignore[call-arg]


def play(args: tuple[str, str, str, int, int]) -> dict[str, Any]:
    hero, other, preset, seed, hero_seat = args
    rules = Ruleset.preset(preset)
    if rules.rounds is None:
        rules = rules.replace(rounds=5)
    bots = [build(hero if s == hero_seat else other, seed * 4 + s) for s in range(4)]
    m = Match(rules, seed=seed, dealer=0)
    times: list[float] = []
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        t0 = time.perf_counter()
        a = bots[seat].act(v)
        if seat == hero_seat:
            times.append(time.perf_counter() - t0)
        m.act(a)
    top = max(m.totals_tenths)
    winners = [s for s in range(4) if m.totals_tenths[s] == top]
    share = 1 / len(winners) if hero_seat in winners else 0.0
    madec = sum(1 for r in m.rounds if (r.calls[hero_seat] or 0) <= r.tricks_won[hero_seat])
    return {
        "share": share,
        "points": float(m.totals[hero_seat]),
        "others": sum(float(m.totals[s]) for s in range(4) if s != hero_seat) / 3,
        "made": madec,
        "rounds": len(m.rounds),
        "times": times,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("hero")
    ap.add_argument("other")
    ap.add_argument("--matches", type=int, default=40, help="deal seeds (each played 4 times)")
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--paired",
        action="store_true",
        help="also play each match with OTHER in the hero's seat and report the paired difference",
    )
    ap.add_argument(
        "--base",
        metavar="SPEC",
        help="with --paired: the bot put in the hero's seat instead of OTHER (e.g. another hard's settings)",
    )
    a = ap.parse_args()
    if a.base and not a.paired:
        ap.error("--base needs --paired")
    tasks = [(a.hero, a.other, a.rules, a.seed + i, s) for i in range(a.matches) for s in range(4)]
    if a.paired:
        base_spec = a.base or a.other
        base_tasks = [(base_spec, a.other, r, sd, st) for _, _, r, sd, st in tasks]
        with ProcessPoolExecutor(a.jobs) as ex:
            both = list(ex.map(play, tasks + base_tasks, chunksize=2))
        hero, base = both[: len(tasks)], both[len(tasks) :]
        dp = [h["points"] - b["points"] for h, b in zip(hero, base)]
        dw = [h["share"] - b["share"] for h, b in zip(hero, base)]
        for name, d in (("points/match", dp), ("win share", dw)):
            mean = sum(d) / len(d)
            sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(len(d) - 1, 1))
            print(
                f"paired {a.hero} - {base_spec} in the same seat: {name} {mean:+.3f} ± {1.96 * sd / math.sqrt(len(d)):.3f}"
            )
    t0 = time.time()
    with ProcessPoolExecutor(a.jobs) as ex:
        res = list(ex.map(play, tasks, chunksize=2))
    n = len(res)
    share = sum(r["share"] for r in res) / n
    se = math.sqrt(max(share * (1 - share), 1e-9) / n)
    pts = sum(r["points"] for r in res) / n
    oth = sum(r["others"] for r in res) / n
    made = sum(r["made"] for r in res) / sum(r["rounds"] for r in res)
    times = sorted(t for r in res for t in r["times"])
    p50 = times[len(times) // 2] * 1000 if times else 0
    p99 = times[int(len(times) * 0.99)] * 1000 if times else 0
    print(
        f"{a.hero} vs 3x {a.other} [{a.rules}] {n} matches: win share {share:.3f} "
        f"± {1.96 * se:.3f} (parity 0.25); points/match {pts:.2f} vs others {oth:.2f}; "
        f"made {made:.2%}; hero decision p50 {p50:.1f} ms p99 {p99:.1f} ms; {time.time() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
