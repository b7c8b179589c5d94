"""What ``hard``'s call search expects of its own tricks, against what it takes, over whole matches.

``benchmarks/calls.py`` measures the calls of first rounds. Here every round of seeded
matches of one ``hard`` against three of each ``--opp`` (the seat rotating with the match)
is measured, split by whether the bot takes some other seat to play ``spar-simple``'s rule
at the call (`callbreak.bots.styles`; from the second round against simple players). At
each of its calls the bot's own call search is run again on a copy of the bot (its deals
and random numbers) for the calls from one below the model's call to three above, and the
playouts' share of each candidate ``c + j`` that ends with at least ``c + j`` tricks
(the seat playing to make ``c + j``) is set beside the share of rounds in which the seat,
having called ``c``, took at least ``c + j``. The call chosen is conditioned on the
search's values on its own deals, so the shares are also predicted on fresh deals (other
seeds), free of that selection. A share taken above the share predicted at ``j = 1, 2``
says the seat's own play takes more tricks than its playouts do.

    python benchmarks/call_reach.py --opp spar-simple medium spar-pimc --matches 40 --jobs 2

Seeded: the same figures on any machine.
"""

from __future__ import annotations

import argparse
import copy
from concurrent.futures import ProcessPoolExecutor
from math import nan

import numpy as np

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.calling import best_call, trick_distribution
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.playouts import decode_outcomes
from callbreak.round import SeatView

#: the candidates above the call made whose playouts are compared with the play
AHEAD = 3


def predicted(bot: HardBot, view: SeatView, fresh: bool) -> tuple[dict[int, float], bool]:
    """For each call from one below the model's to ``AHEAD`` above it, the share of the call
    search's playouts (on a copy of ``bot``: its deals and seed, or with ``fresh`` other deals
    and random numbers, free of the selection of the call on them) in which the seat takes
    at least that call; and whether some other seat is taken for ``spar-simple``."""
    b = copy.deepcopy(bot)
    base, _ = best_call(view, trick_distribution(view))
    seed = b.rng.randrange(1 << 40) + int(fresh)  # as `HardBot.choose_call` draws it
    cands = [c for c in view.legal_calls if base - 1 <= c <= base + AHEAD]
    k = Knowledge.from_view(view)
    styles = b.styles(view, k, seed)
    deals = b._deals_for(view, k, b.call_deals, seed, styles, call=True)
    totals, sd = b.match_stakes(view)
    outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
    b.call_table(view, deals, cands, totals, sd, seed, outcomes=outcomes, styles=styles)
    won, _ = decode_outcomes(outcomes)
    share = {c: float((won[:, j, view.seat] >= c).mean()) for j, c in enumerate(cands)}
    simple = any(int(styles[s]) >= 1 for s in range(4) if s != view.seat)
    return share, simple


Row = tuple[bool, int, int, list[float], list[float]]


def measure(opp: str, matches: int, seed: int) -> list[Row]:
    """Per round of the hero: (style known, call, tricks, predicted shares at call + j on its
    own deals, the same on fresh deals)."""
    rows = []
    for i in range(matches):
        hero = i % 4
        bots = [make_bot("hard" if s == hero else opp, seed=s + 7 * i) for s in range(4)]
        m = Match(Ruleset.preset("bhoos"), seed=seed + i // 4)
        preds = []
        while not m.is_over:
            s = m.to_act
            assert s is not None
            v = m.view(s)
            if s == hero and v.phase == "calling":
                bot = bots[s]
                assert isinstance(bot, HardBot)
                own, simple = predicted(bot, v, False)
                other, _ = predicted(bot, v, True)
                preds.append((own, other, simple))
            m.act(bots[s].act(v))
        for (own, other, simple), rnd in zip(preds, m.rounds):
            c, w = rnd.calls[hero], rnd.tricks_won[hero]
            assert c is not None
            at = [c + j for j in range(3)]
            rows.append((simple, c, w, [own.get(x, nan) for x in at], [other.get(x, nan) for x in at]))
    return rows


def report(opp: str, rows: list[Row]) -> list[str]:
    """The printed lines for one opponent."""
    out = []
    for simple in (False, True):
        sel = [r for r in rows if r[0] == simple]
        if not sel:
            continue
        calls = np.array([r[1] for r in sel])
        won = np.array([r[2] for r in sel])
        label = "some seat taken for spar-simple" if simple else "no seat taken for spar-simple"
        out.append(f"{opp:12} {label}: {len(sel)} rounds, call {calls.mean():.2f}, tricks {won.mean():.2f}")
        for j in range(3):
            pred = np.array([r[3][j] for r in sel])
            fresh = np.array([r[4][j] for r in sel])
            ok = ~np.isnan(pred) & ~np.isnan(fresh)
            taken = (won[ok] >= calls[ok] + j).mean()
            out.append(
                f"{'':12}   at least call+{j}: predicted {pred[ok].mean():6.3f} (its playouts at call+{j}),"
                f" {fresh[ok].mean():6.3f} (fresh deals); taken {taken:6.3f} (playing to the call),"
                f" {int(ok.sum())} rounds"
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opp", nargs="+", default=["spar-simple", "medium", "spar-pimc"])
    ap.add_argument("--matches", type=int, default=40)
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
