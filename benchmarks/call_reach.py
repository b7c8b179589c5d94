"""What ``hard``'s call search expects of its own tricks, against what it takes, over whole matches.

``benchmarks/calls.py`` measures the calls of first rounds. Here every round of seeded
matches of one ``hard`` against three of each ``--opp`` (the seat rotating with the match)
is measured, split by whether the bot takes some other seat (one or more) to play
``spar-simple``'s rule at the call (`callbreak.bots.styles`; from the second round against
simple players). At each of its calls the bot's own call search is run again on a copy of
the bot (its deals and random numbers; checked against `HardBot.choose_call` on another
copy: the same value for every call that searches) for the calls from one below the
model's call to ``AHEAD`` above it. Printed:
the mean call, the mean of the playouts' tricks at the call made (the seat playing to make
it) and the mean tricks taken; then, for ``j`` = 0, 1, 2, the playouts' share of the
candidate ``c + j`` that end with at least ``c + j`` tricks (the seat playing to make
``c + j``) beside the share of rounds in which the seat, having called ``c``, took at
least ``c + j`` (playing to make ``c``: it understates what playing to the higher call
would take). The call chosen is conditioned on the search's values on its own deals, so
the shares are also predicted on fresh deals (another seed), free of that selection. A
share taken above the share predicted suggests the seat's own play takes more tricks than
its playouts give it.

    python benchmarks/call_reach.py --opp spar-simple medium spar-pimc --matches 60 --jobs 2

Seeded: the same figures on any machine.
"""

from __future__ import annotations

import argparse
import copy
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from math import isclose, nan

import numpy as np

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.calling import best_call, trick_distribution
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.playouts import decode_outcomes
from callbreak.round import SeatView

#: the candidates above the model's call whose playouts are compared with the play
AHEAD = 3


@dataclass(frozen=True)
class Search:
    """One call search, run again: per candidate call, the playouts' share that reach it,
    their mean tricks for the seat and the search's value of the call; the other seats
    taken for ``spar-simple``."""

    share: dict[int, float]
    tricks: dict[int, float]
    values: dict[int, float]
    simple_seats: int


def search_again(bot: HardBot, view: SeatView, fresh: bool) -> Search:
    """`HardBot.choose_call`'s search on a copy of ``bot``, its steps in its order (the seed
    drawn first, then the styles, the deals, the stakes), for the calls from one below the
    model's to ``AHEAD`` above it; with ``fresh``, another seed (other deals and random
    numbers). It uses the bot's private ``_deals_for``, as ``choose_call`` does."""
    b = copy.deepcopy(bot)
    base, _ = best_call(view, trick_distribution(view))
    seed = b.rng.randrange(1 << 40) + int(fresh)
    cands = [c for c in view.legal_calls if base - 1 <= c <= base + AHEAD]
    k = Knowledge.from_view(view)
    styles = b.styles(view, k, seed)
    deals = b._deals_for(view, k, b.call_deals, seed, styles, call=True)
    assert deals, "the call search needs call_deals > 0"
    totals, sd = b.match_stakes(view, styles)
    outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
    table = b.call_table(view, deals, cands, totals, sd, seed, outcomes=outcomes, styles=styles)
    won = decode_outcomes(outcomes)[0][:, :, view.seat]
    return Search(
        share={c: float((won[:, j] >= c).mean()) for j, c in enumerate(cands)},
        tricks={c: float(won[:, j].mean()) for j, c in enumerate(cands)},
        values={c: float(table[:, j].mean()) for j, c in enumerate(cands)},
        simple_seats=sum(1 for s in range(4) if s != view.seat and int(styles[s]) >= 1),
    )


@dataclass(frozen=True)
class Row:
    """One round of the hero: its call and tricks, and the searches run again at its call."""

    call: int
    tricks: int
    own: Search
    fresh: Search

    def shares(self, search: Search) -> list[float]:
        """The share of ``search``'s playouts at ``call + j`` reaching it, ``j`` = 0, 1, 2 (nan:
        not searched)."""
        return [search.share.get(self.call + j, nan) for j in range(3)]


def measure(opp: str, matches: int, seed: int) -> list[Row]:
    """Every round of the hero over ``matches`` matches against three of ``opp``."""
    rows = []
    for i in range(matches):
        hero = i % 4
        bots = [make_bot("hard" if s == hero else opp, seed=s + 7 * i) for s in range(4)]
        m = Match(Ruleset.preset("bhoos"), seed=seed + i // 4)
        searches: list[tuple[Search, Search]] = []
        while not m.is_over:
            s = m.to_act
            assert s is not None
            v = m.view(s)
            if s == hero and v.phase == "calling":
                bot = bots[s]
                assert isinstance(bot, HardBot)
                expected, values = copy.deepcopy(bot).choose_call(v)
                own = search_again(bot, v, False)
                # the search run again is choose_call's: the same value for every call it searched
                assert all(isclose(own.values[c], x, rel_tol=1e-9, abs_tol=1e-12) for c, x in values.items())
                searches.append((own, search_again(bot, v, True)))
                call = bot.act(v)
                assert call == expected, "a copy of the bot calls as the bot does"
            else:
                call = bots[s].act(v)
            m.act(call)
        assert len(searches) == len(m.rounds), "one call of the hero's a round"
        for (own, fresh), rnd in zip(searches, m.rounds):
            c = rnd.calls[hero]
            assert c is not None
            rows.append(Row(c, rnd.tricks_won[hero], own, fresh))
    return rows


def report(opp: str, rows: list[Row]) -> list[str]:
    """The printed lines for one opponent."""
    out = []
    for simple in (False, True):
        sel = [r for r in rows if (r.own.simple_seats > 0) == simple]
        if not sel:
            continue
        calls = np.array([r.call for r in sel])
        won = np.array([r.tricks for r in sel])
        predicted = np.array([r.own.tricks[r.call] for r in sel])
        label = "some seat taken for spar-simple" if simple else "no seat taken for spar-simple"
        seats = f" (seats taken: {np.mean([r.own.simple_seats for r in sel]):.2f})" if simple else ""
        out.append(
            f"{opp:12} {label}{seats}: {len(sel)} rounds, call {calls.mean():.2f},"
            f" tricks {predicted.mean():.2f} in the playouts at the call, {won.mean():.2f} taken"
        )
        own = np.array([r.shares(r.own) for r in sel])
        fresh = np.array([r.shares(r.fresh) for r in sel])
        for j in range(3):
            ok = ~np.isnan(own[:, j]) & ~np.isnan(fresh[:, j])
            taken = (won[ok] >= calls[ok] + j).mean()
            out.append(
                f"{'':12}   at least call+{j}: predicted {own[ok, j].mean():6.3f} (its playouts at call+{j}),"
                f" {fresh[ok, j].mean():6.3f} (fresh deals); taken {taken:6.3f} (playing to the call),"
                f" {int(ok.sum())} rounds"
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opp", nargs="+", default=["spar-simple", "medium", "spar-pimc"])
    ap.add_argument("--matches", type=int, default=60)
    ap.add_argument("--seed", type=int, default=92000)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    print(f"bhoos rules, {a.matches} matches of hard against 3 x each, seed {a.seed}")
    with ProcessPoolExecutor(a.jobs) as pool:
        futures = {opp: pool.submit(measure, opp, a.matches, a.seed) for opp in a.opp}
        for opp, f in futures.items():
            print("\n".join(report(opp, f.result())), flush=True)


if __name__ == "__main__":
    main()
