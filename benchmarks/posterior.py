"""``hard``'s deals against the exact posterior, against three ``spar-simple``s, side by side.

Against players of a known deterministic rule, what the seat has seen pins the deal down
exactly: a deal is possible when replaying the rule on it gives every call and card seen.
Deals are dealt uniformly, so the posterior is uniform over the possible deals. This measures
how close ``hard``'s deals come to it, and so how much of what an oracle gains (the card
search shown every hand: +9.2 points of win share against ``spar-simple``, docs/bots.md) any
inference could still recover.

In seeded matches of ``hard:opp=1`` (told that the others play ``spar-simple``'s rule; the
default ``hard`` draws the same deals once it has inferred that style) against three
``spar-simple``s, at every ``--every``-th card decision of seat 0 with a choice:

- ``hard``: the card search's deals (`HardBot._deals_for`, ``--deals`` of them): the share of
  the cards the seat cannot see that a deal puts in the hand that holds them (a third is a
  blind guess), and the share of its deals that are possible (replayed as above);
- ``posterior``: a Markov chain over the possible deals (a card of one other seat swapped
  with a card of another, kept when the deal stays possible; uniform, so every possible deal
  equally likely), ``--steps`` steps from the true deal, every 5th kept after the first third:
  the same share. A chain that mixes slowly stays near the true deal, so this share is, if
  anything, above the posterior's;
- ``from hard``: the same chain started from the first of ``hard``'s deals instead. A chain
  that mixes slowly stays near where it starts; two chains from such different starts that
  agree have mixed well enough for this share.

This compares the mean share alone: ``hard``'s deals equal to the posterior on it leave nothing
for a sharper inference to find on that measure, without showing that they are drawn from it.

Printed: the three shares overall and by stage of the round, the first chain's acceptance rate,
and the share of ``hard``'s deals that are possible.

    python benchmarks/posterior.py --matches 3 --every 2 --steps 1000
"""

from __future__ import annotations

import argparse
import random

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.sparring import SimpleBot
from callbreak.round import Action, CallAction, Round

RULE = SimpleBot(seed=0)


def possible(rules: Ruleset, dealer: int, hands: list[int], log: list[Action]) -> bool:
    """Whether the round's ``log`` (`Round.actions`) replays on ``hands`` with seats 1-3
    playing ``spar-simple``'s rule and seat 0 its own actions."""
    r = Round(rules, hands=hands, dealer=dealer)
    for action in log:
        value = action.call if isinstance(action, CallAction) else int(action.card)
        if action.seat != 0 and int(RULE.act(r.view(action.seat))) != value:
            return False
        # legal on every deal: the rule plays only cards it holds, and seat 0's hand is fixed
        if isinstance(action, CallAction):
            r.call(value)
        else:
            r.play(value)
    return True


def share_right(deals: list[list[int]], truth: list[int], seat: int, hidden: int) -> float:
    """The mean share of the ``hidden`` cards a deal puts in the hand that holds them."""
    return sum(
        sum((d[s] & truth[s]).bit_count() for s in range(4) if s != seat) / hidden for d in deals
    ) / len(deals)


def chain(
    rules: Ruleset, dealer: int, start: list[int], played: list[int], log: list[Action],
    steps: int, rng: random.Random,
) -> tuple[list[list[int]], float]:
    """Deals of the exact posterior by swaps from the possible deal ``start`` (module
    docstring), and the share of steps accepted."""
    cur = list(start)
    kept: list[list[int]] = []
    accepted = 0
    for t in range(steps):
        a, b = rng.sample([1, 2, 3], 2)
        if cur[a] and cur[b]:
            ca = rng.choice([c for c in range(52) if cur[a] >> c & 1])
            cb = rng.choice([c for c in range(52) if cur[b] >> c & 1])
            new = list(cur)
            new[a] = cur[a] ^ (1 << ca) | (1 << cb)
            new[b] = cur[b] ^ (1 << cb) | (1 << ca)
            if possible(rules, dealer, [new[s] | played[s] for s in range(4)], log):
                cur = new
                accepted += 1
        if t >= steps // 3 and t % 5 == 0:
            kept.append(list(cur))
    return kept, accepted / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--every", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--rules", default="bhoos")
    a = ap.parse_args()
    rng = random.Random(5)
    rows: list[tuple[int, float, float, float, float, float]] = []
    for match in range(a.matches):
        hero = HardBot(seed=match, opp=1)
        bots = [hero, *(make_bot("spar-simple", seed=s) for s in range(1, 4))]
        m = Match(Ruleset.preset(a.rules, rounds=5), seed=1000 + match)
        decision = 0
        while not m.is_over:
            s = m.to_act
            assert s is not None
            v = m.view(s)
            if s == 0 and v.phase == "playing" and len(v.legal_cards) > 1:
                decision += 1
                if decision % a.every == 0:
                    rd = m.round
                    truth = list(rd.hand_masks)
                    k = Knowledge.from_view(v)
                    hidden = k.unseen.bit_count()
                    shadow = HardBot(seed=decision, opp=1)
                    deals = shadow._deals_for(v, k, a.deals, decision, shadow.styles(v, k, 1), call=False)
                    log = rd.actions
                    played = list(k.played_by)
                    ok = sum(
                        possible(rd.rules, rd.dealer, [d[q] | played[q] for q in range(4)], log) for d in deals
                    ) / len(deals)
                    assert possible(rd.rules, rd.dealer, [truth[q] | played[q] for q in range(4)], log)
                    post, rate = chain(rd.rules, rd.dealer, truth, played, log, a.steps, rng)
                    other, _ = chain(rd.rules, rd.dealer, deals[0], played, log, a.steps, rng)
                    rows.append(
                        (
                            len(v.tricks),
                            share_right(deals, truth, 0, hidden),
                            share_right(post, truth, 0, hidden),
                            share_right(other, truth, 0, hidden),
                            rate,
                            ok,
                        )
                    )
            m.act(bots[s].act(v))
    print(f"{len(rows)} decisions of seat 0 in {a.matches} matches of hard:opp=1 against 3 x spar-simple ({a.rules} rules)")
    print(
        f"{'tricks played':14} {'n':>4} {'hard':>7} {'posterior':>10} {'from hard':>10} {'accepted':>9}"
        f" {'hard possible':>14}"
    )
    for name, lo, hi in (("all", 0, 13), ("0-3", 0, 4), ("4-7", 4, 8), ("8-11", 8, 13)):
        sel = [r for r in rows if lo <= r[0] < hi]
        mean = [sum(r[i] for r in sel) / len(sel) for i in range(1, 6)]
        print(
            f"{name:14} {len(sel):4} {mean[0]:7.3f} {mean[1]:10.3f} {mean[2]:10.3f} {mean[3]:9.2f} {mean[4]:14.3f}"
        )


if __name__ == "__main__":
    main()
