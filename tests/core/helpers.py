"""Build hand-made positions for rule tests."""

from __future__ import annotations

from callbreak import CARDS, Card, Round, Ruleset


def deal(spec: dict[int, tuple[str, str]]) -> list[list[Card]]:
    """Four 13-card hands.  ``spec[seat] = (cards, closed)``: the seat holds ``cards``
    (space separated) and, in the suits of ``closed``, nothing else.  The rest of
    the deck is shared out so that those constraints hold."""
    hands: list[list[Card]] = [[], [], [], []]
    closed = ["", "", "", ""]
    used: set[Card] = set()
    for seat, (cards, cl) in spec.items():
        for t in cards.split():
            c = Card.parse(t)
            assert c not in used, f"{c} given twice"
            used.add(c)
            hands[seat].append(c)
        closed[seat] = cl
    pool = [c for c in CARDS if c not in used]
    # fill the most constrained seats first
    for seat in sorted(range(4), key=lambda s: -len(closed[s])):
        for c in list(pool):
            if len(hands[seat]) == 13:
                break
            if c.suit not in closed[seat]:
                hands[seat].append(c)
                pool.remove(c)
        assert len(hands[seat]) == 13, f"cannot fill seat {seat}"
    assert not pool
    return [sorted(h) for h in hands]


def position(rules: Ruleset, spec: dict[int, tuple[str, str]], plays: str = "", leader: int = 0) -> Round:
    """A round where ``leader`` leads the first trick, everyone called ``min_call``,
    and ``plays`` (space separated cards) have been played."""
    rnd = Round(rules, deal(spec), dealer=(leader - 1) % 4)
    for _ in range(4):
        rnd.call(rules.min_call)
    for t in plays.split():
        rnd.play(t)
    return rnd


def legal(rnd: Round) -> str:
    return " ".join(str(c) for c in rnd.legal_cards())
