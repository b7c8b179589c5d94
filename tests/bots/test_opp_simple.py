"""``hard:opp=1``: the other seats modelled as ``spar-simple``. The kernel's copy of
that bot's card (`kernel.simple_card`) is held to `callbreak.bots.sparring.SimpleBot`,
the deals agree with its calls, and the setting is off unless asked for."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from callbreak import Round, Ruleset, SeatView
from callbreak.bots import kernel
from callbreak.bots.determinize import play_record, sample_deals, simple_deals, simple_knowledge
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.playouts import search_values
from callbreak.bots.sparring import SimpleBot, SimpleClubsBot, SimpleHighBot
from tests.bots.helpers import called_round, trick_array


@pytest.mark.parametrize(
    ("bot", "order"), [(SimpleBot(seed=1), 0), (SimpleHighBot(seed=1), 24), (SimpleClubsBot(seed=1), 23)]
)
def test_kernel_simple_card_matches_the_sparring_bot(bot: SimpleBot, order: int) -> None:
    """Card for card, over 150 rounds: the kernel's copy of the rule, in each bot's hand
    order; and `simple_fits` names that order for the card played, and only the orders
    in which `simple_card` plays it."""
    rng = random.Random(23)
    checked = 0
    for game in range(150):
        rules, rnd = called_round(rng)
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            view = rnd.view(seat)
            want = bot.act(view)
            lm = sum(1 << int(c) for c in view.legal_cards)
            trick = trick_array(c for _, c in view.trick)
            got = kernel.simple_card(lm, trick, len(view.trick), rules.trump_index, order)
            assert got == int(want), (rules.to_dict(), view.to_dict(), str(want))
            if game % 10 == 0:
                for c in view.legal_cards:
                    fits = kernel.simple_fits(lm, trick, len(view.trick), rules.trump_index, int(c))
                    plays = [kernel.simple_card(lm, trick, len(view.trick), rules.trump_index, o) for o in range(48)]
                    assert [o for o in range(48) if fits >> o & 1] == [o for o in range(48) if plays[o] == c]
            checked += 1
            # its own cards and random ones: more kinds of position
            rnd.play(want if game % 2 else rng.choice(rnd.legal_cards()))
    assert checked == 150 * 52


def turns(r: Round) -> Iterator[SeatView]:
    """The view of the seat to act at each turn of ``r``, until it ends (the caller acts)."""
    while r.phase in ("calling", "playing"):
        seat = r.to_act
        assert seat is not None
        yield r.view(seat)


def aces_and_kings(hand: int) -> int:
    return sum(hand >> (13 * su + r) & 1 for su in range(4) for r in (11, 12))


def test_simple_deals_agree_with_the_calls_and_the_cards_played() -> None:
    """Through a whole round of three spar-simple players and a fourth seat: every deal
    gives each seat its cards still unseen to the viewer, keeps the viewer's hand, and
    gives each other seat that called as many aces and kings (with those it played) as
    its call."""
    m = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=5), dealer=3)
    bots = [SimpleBot(seed=s) for s in range(4)]
    rng = random.Random(2)
    checked = 0
    for view in turns(m):
        seat = view.seat
        if seat == 0:
            k = Knowledge.from_view(view)
            deals = simple_deals(view, k, 20, rng)
            assert len(deals) == 20
            for d in deals:
                assert d[0] == k.hand
                assert [h.bit_count() for h in d] == list(view.hand_sizes)
                assert d[1] | d[2] | d[3] == k.unseen  # each unseen card in one hand
                for s in (1, 2, 3):
                    assert d[s] & k.cannot[s] == 0  # no card of a suit it showed it lacks
                    if view.calls[s] is not None:
                        assert min(max(aces_and_kings(d[s] | k.played_by[s]), 1), 8) == view.calls[s]
            checked += 1
        m.act(bots[seat].act(view))
    assert checked == 14  # a call and 13 cards


def test_simple_deals_fall_back_to_the_calls_weighted_deals_where_none_agree() -> None:
    """A seat that called 8 cannot hold 8 aces and kings while the viewer holds one: the
    draws find none, and the deals come weighted by the calls, as many as asked for."""
    r = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=4), dealer=3)
    assert aces_and_kings(r.hand_masks[0]) > 0
    for call in (2, 8, 3):
        r.call(call)
    view = r.view(3)
    k = Knowledge.from_view(view)
    deals = simple_deals(view, k, 20, random.Random(1))
    assert len(deals) == 20
    assert all(d[3] == k.hand and d[0] | d[1] | d[2] == k.unseen for d in deals)
    assert all(aces_and_kings(d[1]) < 8 for d in deals)


def test_opp_is_checked_and_defaults_to_the_inferred_styles() -> None:
    for bad in (3, -1, True):
        with pytest.raises(ValueError, match="opp must be 0"):
            HardBot(seed=1, opp=bad)
        with pytest.raises(ValueError, match="memory must be 0"):
            HardBot(seed=1, opp=2, memory=bad)
    # the same seeded decisions with the setting left out and at 2 (against three spar-simple
    # players, where 0 would decide otherwise)
    m = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=9), dealer=3)
    a, b = HardBot(seed=4, iterations=600, call_deals=40), HardBot(seed=4, iterations=600, call_deals=40, opp=2)
    c = HardBot(seed=4, iterations=600, call_deals=40, opp=0)
    simple = SimpleBot(seed=1)
    differs = 0
    for view in turns(m):
        seat = view.seat
        if seat == 0:
            got = a.act(view)
            assert b.act(view) == got
            differs += c.act(view) != got
        else:
            got = simple.act(view)
        m.act(got)
    assert differs > 0


def test_hard_with_the_simple_model_plays_a_round_against_three_simple_players() -> None:
    """With ``opp=1`` every call and card is legal, and the same seed replays the same round."""

    def play() -> list[int]:
        m = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=11), dealer=3)
        hero, simple = HardBot(seed=3, iterations=600, call_deals=40, opp=1), SimpleBot(seed=1)
        taken = []
        for view in turns(m):
            seat = view.seat
            act = hero.act(view) if seat == 2 else simple.act(view)
            if seat == 2:
                assert act in (view.legal_calls if view.phase == "calling" else view.legal_cards)
                taken.append(int(act))
            m.act(act)
        return taken

    first = play()
    assert len(first) == 14 and play() == first


@pytest.mark.parametrize("style", [1, 25])
def test_the_call_searchs_simple_calls_are_the_sparring_bots(style: int) -> None:
    """With the style of ``spar-simple`` (any hand order) the call search lets the seats that
    have not called call as it does (a third copy of its call, in the kernel): each
    playout's calls for them are `SimpleBot`'s (`SimpleHighBot`'s) on the same hands."""
    import numpy as np

    from callbreak.bots.calling import load_model
    from callbreak.bots.playouts import decode_outcomes

    rules = Ruleset.preset("bhoos")
    for seed in range(40):
        r = Round(rules, Round.deal_hands(seed=seed), dealer=seed % 4)
        me = r.to_act
        assert me is not None
        outcomes = np.zeros((1, 1), dtype=np.int64)
        kernel.call_search(
            np.array([r.hand_masks], dtype=np.int64), me, (r.dealer + 1) & 3, np.full(4, -1, dtype=np.int64),
            np.array([2], dtype=np.int64), kernel.rules_array(rules), np.array(load_model().weights),
            np.zeros(4, dtype=np.int64), rules.min_call, rules.max_call, 0.0, np.zeros(4), 13.5, 4, 1, 0,
            outcomes, 0.0, np.full(4, style, dtype=np.int64),
        )
        r.call(2)
        bot = SimpleBot(seed=1) if style == 1 else SimpleHighBot(seed=1)  # orders 0 and 24
        for view in turns(r):
            if view.phase != "calling":
                break
            r.act(bot.act(view))
        _, calls = decode_outcomes(outcomes)
        assert calls[0, 0].tolist() == list(r.calls)


def test_simple_deals_constrain_only_the_seats_named() -> None:
    """``seats``: only those seats' calls are taken for counts of aces and kings (the
    others, taken for medium by ``opp=2``, are drawn without regard to their calls)."""
    r = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=5), dealer=3)
    bots = [SimpleBot(seed=s) for s in range(4)]
    for view in turns(r):
        if view.phase == "playing":
            break
        r.act(bots[view.seat].act(view))
    seat = r.to_act
    assert seat is not None
    view = r.view(seat)
    k = Knowledge.from_view(view)
    others = [s for s in range(4) if s != view.seat]
    named, free = others[0], others[1:]
    deals = simple_deals(view, k, 30, random.Random(3), [named])
    assert len(deals) == 30
    assert all(min(max(aces_and_kings(d[named]), 1), 8) == view.calls[named] for d in deals)
    assert any(min(max(aces_and_kings(d[s]), 1), 8) != view.calls[s] for d in deals for s in free)


def test_search_values_takes_a_style_or_one_per_seat_and_nothing_else() -> None:
    """``opp`` of `search_values`: a style (0 to 48, `styles.style_name`; also as a numpy
    integer) for every seat, or a list of four; anything else, or a wrong length, is refused."""
    _, r = called_round(random.Random(2))
    seat = r.to_act
    assert seat is not None
    view = r.view(seat)
    k = Knowledge.from_view(view)
    deals = sample_deals(view, k, 4, random.Random(1))
    one = search_values(view, k, deals, seed=1, opp=1)
    assert one.shape == (4, len(view.legal_cards))
    assert (search_values(view, k, deals, seed=1, opp=np.int64(1)) == one).all()
    assert (search_values(view, k, deals, seed=1, opp=[1, 1, 1, 1]) == one).all()
    assert search_values(view, k, deals, seed=1, opp=[0, 25, 1, 48]).shape == one.shape
    for bad in (49, -1, [0, 1, 0], [0, 49, 0, 0]):
        with pytest.raises(ValueError, match="opp must be a style"):
            search_values(view, k, deals, seed=1, opp=bad)


def test_the_searchs_playouts_play_each_seat_in_its_styles_hand_order() -> None:
    """With two tricks to go, a seat's card is the last choice of the round for the seats after
    it: the search's value of each of its cards, on the real deal, is the value of the round as
    the other seats' own bots end it, for the style of each bot's hand order (``1 + order``), and
    the orders end some positions differently (so a style read as another order would fail)."""
    from callbreak.bots.calling import ROUND_SD
    from callbreak.bots.kernel.scoring import _value
    from callbreak.bots.styles import SIMPLE, SIMPLE_HIGH

    def ending(rnd: Round, card: int, bot: SimpleBot) -> np.ndarray:
        r = rnd.copy()
        r.play(card)
        while r.phase == "playing":
            seat = r.to_act
            assert seat is not None
            r.act(bot.act(r.view(seat)) if seat != rnd.to_act else r.legal_cards()[0])
        return np.array(r.tricks_won, dtype=np.int64)

    rules = Ruleset.preset("bhoos")
    differ = 0
    for seed in range(40):
        rnd = Round(rules, Round.deal_hands(seed=seed), dealer=seed % 4)
        low = SimpleBot(seed=1)
        while rnd.phase == "calling":
            rnd.act(low.act(rnd.view(rnd.to_act)))  # type: ignore[arg-type]
        while len(rnd.tricks) < 11 or rnd.to_act != 0 or len(rnd.trick) > 1:
            if rnd.phase != "playing":
                break
            rnd.act(low.act(rnd.view(rnd.to_act)))  # type: ignore[arg-type]
        if rnd.phase != "playing" or len(rnd.legal_cards()) < 2:
            continue
        view = rnd.view(0)
        k = Knowledge.from_view(view)
        calls = np.array(view.calls, dtype=np.int64)
        ends = {}
        bots = ((SIMPLE, SimpleBot(seed=1)), (SIMPLE_HIGH, SimpleHighBot(seed=1)), (1 + 23, SimpleClubsBot(seed=1)))
        for style, bot in bots:
            got = search_values(view, k, [list(rnd.hand_masks)], seed=1, eps=0, opp=[0, style, style, style])
            ends[style] = [ending(rnd, c, bot) for c in view.legal_cards]
            want = [_value(0, e, calls, np.zeros(4), ROUND_SD * 3, kernel.rules_array(rules)) for e in ends[style]]
            assert got[0].tolist() == pytest.approx(want)
        differ += any((a != b).any() for a, b in zip(ends[SIMPLE], ends[SIMPLE_HIGH]))
        differ += any((a != b).any() for a, b in zip(ends[SIMPLE], ends[1 + 23]))
    assert differ >= 3


def test_simple_cannot_rules_out_exactly_the_cards_the_rule_forbids() -> None:
    """`kernel.simple_cannot` against the independent count of the rule's misses
    (`kernel.style_misses`, from `simple_fits`): over rounds of random rules in which
    the other seats play `SimpleBot`, `SimpleHighBot` and `SimpleClubsBot` (hand orders
    0, 24 and 23), a deal of the cards unseen to the viewer gives a seat a card ruled
    out exactly when that seat's rule would not have played one of its cards so far.
    The seats' real hands are never ruled out, and the play rules out cards."""
    rng = random.Random(31)
    kinds = [(SimpleBot(seed=1), 0), (SimpleHighBot(seed=1), 24), (SimpleClubsBot(seed=1), 23)]
    ruled_out = deals_checked = agree_with_rule = 0
    for game in range(24):
        rules, rnd = called_round(rng)
        me = game % 4
        seats = {s: kinds[(game + s) % 3] for s in range(4) if s != me}
        orders = np.array([seats[s][1] if s in seats else -1 for s in range(4)], dtype=np.int64)
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            view = rnd.view(seat)
            if seat == me and len(view.tricks) in (2, 5, 8, 11):
                k = Knowledge.from_view(view)
                record = play_record(view, k)
                out = kernel.simple_cannot(*record[:5], orders, k.unseen, record[6])
                assert int(out[me]) == 0
                assert all(int(out[s]) & k.played_by[s] == 0 for s in seats)  # each plays its rule throughout
                assert all(int(out[s]) & rnd.hand_masks[s] == 0 for s in seats)
                ruled_out += sum((int(out[s]) & ~k.cannot[s] & k.unseen).bit_count() for s in seats)
                wider = simple_knowledge(view, k, [o + 1 if o >= 0 else 0 for o in orders.tolist()])
                drawn = [k.sample(rng) for _ in range(15)] + [wider.sample(rng) for _ in range(15)]
                misses = kernel.style_misses(
                    np.array(drawn, dtype=np.int64), *record, np.full(4, -1, dtype=np.int64),
                    rules.min_call, rules.max_call, 0,
                )  # fmt: skip
                for d, deal in enumerate(drawn):
                    for s in seats:
                        fits = misses[d, 1 + int(orders[s]), s] == 0
                        assert fits == (deal[s] & int(out[s]) == 0), (game, s, view.to_dict())
                        agree_with_rule += fits
                        deals_checked += 1
            rnd.play(view.legal_cards[0] if seat == me else seats[seat][0].act(view))
    assert deals_checked == 24 * 4 * 30 * 3
    assert ruled_out > 0 and 0 < agree_with_rule < deals_checked


def test_simple_knowledge_takes_each_seat_whose_cards_allow_it() -> None:
    """Seats taken for ``spar-simple`` that play the medium level's rules: seat by seat,
    the cards its play rules out are added unless its own played cards contradict the
    rule (`kernel.simple_cannot` names some of them) or they would leave no deal with
    the seats added before it; every knowledge returned has a deal, and all three
    cases occur."""
    from callbreak.bots.medium import MediumBot

    with pytest.raises(ValueError, match="rule_out must be 0"):
        HardBot(seed=1, rule_out=2)
    seen = {"added": 0, "own cards": 0, "no deal": 0}
    for seed in range(12):
        r = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=seed), dealer=3)
        bots = [MediumBot(seed=s) for s in range(4)]
        for view in turns(r):
            if view.seat == 0 and view.phase == "playing":
                k = Knowledge.from_view(view)
                got = simple_knowledge(view, k, [0, 1, 1, 1])
                assert got.has_deal()
                record = play_record(view, k)
                out = kernel.simple_cannot(*record[:5], np.array([-1, 0, 0, 0]), k.unseen, record[6])
                before = k
                for s in (1, 2, 3):
                    more = int(out[s])
                    if got.cannot[s] == before.cannot[s] | more and more & ~before.cannot[s]:
                        seen["added"] += 1
                        before = before.ruling_out(s, more)
                        continue
                    assert got.cannot[s] == before.cannot[s]
                    if more & k.played_by[s]:
                        seen["own cards"] += 1
                    elif more & ~before.cannot[s]:
                        assert not before.ruling_out(s, more).has_deal()
                        seen["no deal"] += 1
                assert got.cannot[0] == k.cannot[0]
            r.act(bots[view.seat].act(view))
    assert min(seen.values()) > 0, seen

