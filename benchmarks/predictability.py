"""How well any model could predict a player's cards: the player against itself, side by side.

``hard`` plays the other seats in its playouts by ``medium``'s rules. Against a searcher
(``spar-pimc``, ``spar-ismcts``) those rules are a model of play the searcher does not follow;
how much better could a model be? A searcher's card depends on its own random numbers, so
the best any model can do is to name its most likely card; the same bot with other random
numbers, or with more of them, is a floor on what that reaches.

In seeded matches of ``medium`` (seat 0) against three of each ``--opp``, at every card
decision of a seat 1-3 with two legal cards or more, the card it played is compared with:

- the same level with another seed, asked on the same view (a floor on what the best model,
  its most likely card, reaches);
- for ``spar-pimc``, the same search with ten times its deals (its card with less noise);
- ``medium``'s rules (`callbreak.bots.medium.choose_card`), the model in ``hard``'s playouts;
- ``spar-counter``'s rule (a greedy card counter), another cheap model.

Printed per opponent: the decisions, the mean number of legal cards, and the share of
decisions on which each predicts the card played (a uniformly random card: one over the
legal cards); then the same by situation (`situation`: leading, following suit or void, with
a card that beats the trick so far or not).  Every bot is seeded, so the figures are the same on any machine.

    python benchmarks/predictability.py --opp spar-pimc spar-ismcts medium --matches 12
"""

from __future__ import annotations

import argparse

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.easy import _beats, trick_winner
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import choose_card
from callbreak.bots.pimc import PimcBot
from callbreak.bots.sparring import CounterBot
from callbreak.round import SeatView


def situation(view: SeatView) -> str:
    """Where in the trick the decision is: ``lead``; ``follow`` (it holds the led suit) or
    ``void`` (it does not), each ``win`` where one of its legal cards beats the trick so
    far and ``lose`` where none does."""
    if not view.trick:
        return "lead"
    t = view.rules.trump_index
    _, best = trick_winner(view.trick, t)
    follows = any(c.suit == view.trick[0][1].suit for c in view.legal_cards)
    wins = any(_beats(c, best, t) for c in view.legal_cards)
    return ("follow" if follows else "void") + (" win" if wins else " lose")


#: the situations of `situation`, in print order
SITUATIONS = ("lead", "follow win", "follow lose", "void win", "void lose")
#: the models compared, in print order (``10xdeals``: ``spar-pimc`` only)
MODELS = ("itself", "10xdeals", "medium", "counter", "uniform")


def measure(opp: str, matches: int, rules: str) -> dict[str, dict[str, float]]:
    """For three of ``opp``: by situation (and ``all``), the decisions, the mean number of
    legal cards and the share each model predicts (module docstring)."""
    sums: dict[str, dict[str, float]] = {k: dict.fromkeys(("n", "legal", *MODELS), 0.0) for k in ("all", *SITUATIONS)}
    n = 0
    for match in range(matches):
        bots = [make_bot("medium" if s == 0 else opp, seed=s + 10 * match) for s in range(4)]
        m = Match(Ruleset.preset(rules, rounds=5), seed=5000 + match)
        while not m.is_over:
            s = m.to_act
            assert s is not None
            v = m.view(s)
            card = int(bots[s].act(v))
            if s != 0 and v.phase == "playing" and len(v.legal_cards) > 1:
                n += 1
                hit = {
                    "n": 1.0,
                    "legal": float(len(v.legal_cards)),
                    "itself": float(int(make_bot(opp, seed=100_000 + n).act(v)) == card),
                    "10xdeals": float(opp == "spar-pimc" and int(PimcBot(seed=200_000 + n, deals=400).act(v)) == card),
                    "medium": float(int(choose_card(v, Knowledge.from_view(v))[0]) == card),
                    "counter": float(int(CounterBot(seed=0).act(v)) == card),
                    "uniform": 1 / len(v.legal_cards),
                }
                for key in ("all", situation(v)):
                    for name, x in hit.items():
                        sums[key][name] += x
            m.act(card)
    return sums


def rows(opp: str, sums: dict[str, dict[str, float]]) -> list[str]:
    """The printed lines for one player: all its decisions, then each situation."""
    out = []
    for key, row in sums.items():
        n = row["n"]
        if not n:
            continue
        cells = [f"{row[name] / n:8.3f}" if name != "10xdeals" or opp == "spar-pimc" else f"{'':>8}" for name in MODELS]
        label = opp if key == "all" else f"  {key}"
        out.append(f"{label:14} {int(n):6} {row['legal'] / n:6.2f} {' '.join(cells)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opp", nargs="+", default=["spar-pimc", "spar-ismcts", "medium"])
    ap.add_argument("--matches", type=int, default=12)
    ap.add_argument("--rules", default="bhoos")
    a = ap.parse_args()
    print(f"{a.matches} matches of medium against 3 x each ({a.rules} rules, 5 rounds); share of decisions predicted")
    print(
        f"{'player':14} {'cards':>6} {'legal':>6} {'itself':>8} {'10xdeals':>8} {'medium':>8}"
        f" {'counter':>8} {'uniform':>8}"
    )
    for opp in a.opp:
        print("\n".join(rows(opp, measure(opp, a.matches, a.rules))), flush=True)


if __name__ == "__main__":
    main()
