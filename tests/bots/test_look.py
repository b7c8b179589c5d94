"""``hard:look``: the card search with the seat's next card chosen by what it will know
then (`kernel.look`), held to a plain reference on the engine: the others play their
cards by the bots themselves (`SimpleBot`, `medium.choose_card`), the deals are grouped
by what the seat sees, and each group's next card is the best on its other deals."""

from __future__ import annotations

import random

import numpy as np
import pytest

from callbreak import Round
from callbreak.bots.determinize import sample_deals
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import choose_card
from callbreak.bots.playouts import look_values, search_values
from callbreak.bots.sparring import SimpleBot
from callbreak.cards import Card
from tests.bots.helpers import called_round


def reference(
    rnd: Round, deals: list[list[int]], base: np.ndarray, styles: list[int], least: int
) -> np.ndarray:
    """`look_values` by the engine: each deal's round rebuilt, the candidate card played,
    the others' cards by the sparring bot or the medium level until the seat's turn."""
    me = rnd.to_act
    assert me is not None
    view = rnd.view(me)
    k = Knowledge.from_view(view)
    acts = [a.call if hasattr(a, "call") else a.card for a in rnd.actions]
    out = base.copy()
    for mi, card in enumerate(view.legal_cards):
        groups: dict[tuple[int, ...], list[tuple[int, Round]]] = {}
        for d, deal in enumerate(deals):
            r = Round.from_actions(rnd.rules, [deal[s] | k.played_by[s] for s in range(4)], rnd.dealer, acts)
            r.play(card)
            seen: list[int] = []
            while r.phase == "playing" and r.to_act != me:
                seat = r.to_act
                assert seat is not None
                v = r.view(seat)
                c = SimpleBot(seed=1).act(v) if styles[seat] == 1 else choose_card(v, Knowledge.from_view(v))[0]
                assert isinstance(c, Card)
                r.play(c)
                seen.append(int(c))
            if r.phase == "playing":
                groups.setdefault(tuple(seen), []).append((d, r))
        for members in groups.values():
            v0 = members[0][1].view(me)
            if len(members) < least or len(v0.legal_cards) < 2:
                continue
            vals = search_values(
                v0,
                Knowledge.from_view(v0),
                [list(r.hand_masks) for _, r in members],
                seed=1,
                eps=0,
                medium_playouts=True,
                opp=styles,
            )
            total = vals.sum(axis=0)
            for gi, (d, _) in enumerate(members):
                out[d, mi] = vals[gi, int(np.argmax(total - vals[gi]))]
    return out


def test_look_matches_the_engine_reference() -> None:
    """On 40 positions of random rules, with the others taken for `spar-simple` or
    `medium` at random, the kernel's values equal the reference's (no random cards,
    so every playout is the same on both sides); and the test is not empty: groups
    both changed values and kept them."""
    rng = random.Random(5)
    changed = kept = 0
    for _ in range(40):
        _, rnd = called_round(rng)
        for _ in range(rng.randrange(0, 36)):
            rnd.play(rng.choice(rnd.legal_cards()))
        while len(rnd.legal_cards()) < 2:
            rnd.play(rnd.legal_cards()[0])
        me = rnd.to_act
        assert me is not None
        view = rnd.view(me)
        k = Knowledge.from_view(view)
        styles = [0 if s == me else rng.choice([0, 1]) for s in range(4)]
        deals = sample_deals(view, k, 24, random.Random(rng.randrange(1 << 30)))
        base = search_values(view, k, deals, seed=1, eps=0, medium_playouts=True, opp=styles)
        got = look_values(view, k, deals, base, seed=1, least=2, eps=0, opp=styles)
        want = reference(rnd, deals, base, styles, 2)
        np.testing.assert_array_equal(got, want)
        changed += int((got != base).sum())
        kept += int((got == base).sum())
    assert changed > 100 and kept > 100


def test_bad_arguments_are_refused() -> None:
    rnd = Round(hands=Round.deal_hands(seed=3), dealer=1)
    for c in (2, 3, 1, 4):
        rnd.call(c)
    view = rnd.view(rnd.to_act or 0)
    k = Knowledge.from_view(view)
    deals = sample_deals(view, k, 4, random.Random(1))
    base = np.zeros((4, len(view.legal_cards)))
    with pytest.raises(ValueError, match="one row a deal"):
        look_values(view, k, deals, base[:3], seed=1, least=2)
    with pytest.raises(ValueError, match="least must be at least 2"):
        look_values(view, k, deals, base, seed=1, least=1)
    with pytest.raises(ValueError, match="opp must be a style"):
        look_values(view, k, deals, base, seed=1, least=2, opp=[0, 0, 99, 0])


def card_values(bot: HardBot, seed: int) -> list[dict[Card, float]]:
    """The values ``bot`` (seat 0) finds for each of its card decisions against three
    `spar-simple`s in the first round of a seeded match."""
    from callbreak import Match, Ruleset

    m = Match(Ruleset.preset("bhoos", rounds=1), seed=seed)
    others = SimpleBot(seed=1)
    out = []
    while not m.is_over:
        seat = m.to_act
        view = m.view(seat)
        if seat == 0 and view.phase == "playing":
            card, values = bot.choose(view)
            out.append(values)
            m.act(card)
        else:
            m.act(bot.act(view) if seat == 0 else others.act(view))
    return out


def test_the_bot_looks_only_where_it_should() -> None:
    """``look=2`` changes the values of some decisions of a round against the same
    decisions without it; with two rollouts a deal (which `kernel.look` does not
    take) or exact endgames it does not look, and the values are ``look=0``'s."""
    settings = {"iterations": 600, "call_deals": 20, "opp": 1}
    off = card_values(HardBot(seed=1, look=0, **settings), 4)
    on = card_values(HardBot(seed=1, look=2, **settings), 4)
    assert len(on) == len(off) and any(a != b for a, b in zip(on, off))
    for extra in ({"rollouts": 2}, {"playout_solve": 2}):
        assert card_values(HardBot(seed=1, look=2, **settings, **extra), 4) == card_values(
            HardBot(seed=1, look=0, **settings, **extra), 4
        )


@pytest.mark.parametrize("bad", [-1, 1, True, 2.5])
def test_look_setting_is_checked(bad: object) -> None:
    with pytest.raises(ValueError, match="look must be 0"):
        HardBot(seed=1, look=bad)  # type: ignore[arg-type]


def test_under_a_serving_cap_the_look_is_counted_not_timed() -> None:
    """With a time limit (serving; here one that never cuts the search), the look runs
    only where its playouts are at most ``look_room`` times the search's: on the same
    views, each decision's values are either the uncapped look's or ``look=0``'s, and
    both occur (here with a room of 3; the default is ``LOOK_ROOM``)."""
    from callbreak import Match, Ruleset

    m = Match(Ruleset.preset("bhoos", rounds=1), seed=4)
    plain, others = HardBot(seed=1, look=0, iterations=600, call_deals=20, opp=1), SimpleBot(seed=1)
    views = []
    while not m.is_over:
        view = m.view(m.to_act)
        if m.to_act == 0 and view.phase == "playing" and len(view.legal_cards) > 1:
            views.append(view)
        m.act(plain.act(view) if m.to_act == 0 else others.act(view))

    def values(**extra: float) -> list[dict[Card, float]]:
        bot = HardBot(seed=1, iterations=600, call_deals=20, opp=1, **extra)  # type: ignore[arg-type]
        return [bot.choose(v)[1] for v in views]

    capped, uncapped, off = values(look=2, time_limit=100.0, look_room=3.0), values(look=2), values(look=0)
    assert all(c in (u, o) for c, u, o in zip(capped, uncapped, off))
    looked = [c == u != o for c, u, o in zip(capped, uncapped, off)]
    held = [c == o != u for c, u, o in zip(capped, uncapped, off)]
    assert any(looked) and any(held)
    with pytest.raises(ValueError, match="look_room"):
        HardBot(seed=1, look_room=0)
