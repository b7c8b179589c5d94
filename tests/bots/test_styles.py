"""``hard:opp=2``: each other seat's style inferred from its cards over the match.

The kernel's count of the cards each style would not have played (`kernel.style_misses`)
is held to the bots themselves on the real deals, the inference tells three
``spar-simple`` players from three medium ones by the third round, and while no seat is taken
for ``spar-simple`` the bot decides exactly as the default does."""

from __future__ import annotations

import random

import numpy as np
import pytest

from callbreak import Match, Round, Ruleset
from callbreak.bots import kernel
from callbreak.bots.base import Bot
from callbreak.bots.determinize import play_record
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import MediumBot
from callbreak.bots.sparring import SimpleBot, SimpleClubsBot, SimpleHighBot
from callbreak.bots.styles import SIMPLE, SIMPLE_HIGH

RULES = Ruleset.preset("bhoos")


def misses_on_the_real_deal(others: type[Bot], seed: int) -> list[np.ndarray]:
    """`kernel.style_misses` on the real hands at each of seat 0's turns of a round in
    which the three other seats are ``others`` (seat 0 plays the lowest legal card)."""
    r = Round(RULES, Round.deal_hands(seed=seed), dealer=seed % 4)
    bots = [others(seed=s) for s in range(4)]
    out = []
    while r.phase in ("calling", "playing"):
        seat = r.to_act
        assert seat is not None
        view = r.view(seat)
        if seat == 0:
            if view.phase == "playing":
                k = Knowledge.from_view(view)
                called = np.array([-1 if c is None else c for c in view.calls], dtype=np.int64)
                got = kernel.style_misses(
                    np.array([r.hand_masks], dtype=np.int64), *play_record(view, k), called,
                    RULES.min_call, RULES.max_call, 1,
                )
                out.append(got[0])
            r.act(view.legal_calls[0] if view.phase == "calling" else view.legal_cards[0])
        else:
            r.act(bots[seat].act(view))
    return out


#: each bot, and the style that is its rule (`callbreak.bots.styles.style_name`)
STYLE_BOTS: tuple[tuple[type[Bot], int], ...] = (
    (MediumBot, 0), (SimpleBot, SIMPLE), (SimpleHighBot, SIMPLE_HIGH), (SimpleClubsBot, 1 + 23),
)  # fmt: skip


def test_on_the_real_deal_each_style_explains_its_own_bots_play() -> None:
    """Held to the bots: on the real hands, each style's rule (for ``spar-simple``'s hand
    orders, with its call) misses none of three of its own bots' cards (MediumBot, and
    SimpleBot, SimpleHighBot and SimpleClubsBot: three hand orders); and over the rounds
    each of these styles misses more than one card a round of each other bot."""
    styles = [style for _, style in STYLE_BOTS]
    other = np.zeros((len(STYLE_BOTS), len(STYLE_BOTS)), dtype=np.int64)  # [bot, style counting]
    for seed in range(12):
        for i, (bot, style) in enumerate(STYLE_BOTS):
            misses = misses_on_the_real_deal(bot, seed)
            assert len(misses) == 13
            assert all(m[style].tolist() == [0, 0, 0, 0] for m in misses), (bot, seed)
            other[i] += misses[-1][styles].sum(axis=1)
    assert np.diag(other).tolist() == [0] * len(STYLE_BOTS)
    assert (other + 13 * np.eye(len(STYLE_BOTS), dtype=np.int64)).min() > 12


def test_the_styles_count_the_kernels_hand_orders() -> None:
    """`styles.ORDERS` is the kernel's number of hand orders (the evidence has a row for each)."""
    from callbreak.bots import styles

    assert styles.ORDERS == kernel.ORDERS == 2 * len(kernel.SUIT_ORDERS) == 48
    assert kernel.SUIT_ORDERS[0].tolist() == [0, 1, 2, 3] and kernel.SUIT_ORDERS[23].tolist() == [3, 2, 1, 0]


def play_match(hero: HardBot, others: type[Bot], seed: int, rounds: int = 2) -> tuple[list[int], list[list[int]]]:
    """A match of ``rounds`` rounds, ``hero`` in seat 1: its actions, and its styles for
    the four seats at the first decision of each round."""
    m = Match(RULES.replace(rounds=rounds), seed=seed)
    bots: list[Bot] = [others(seed=s) for s in range(4)]
    taken: list[int] = []
    styles: list[list[int]] = []
    while not m.is_over:
        seat = m.to_act
        view = m.view(seat)
        if seat == 1:
            if view.phase == "calling":
                styles.append(hero.styles(view, Knowledge.from_view(view), 0).tolist())
            act = hero.act(view)
            taken.append(int(act))
        else:
            act = bots[seat].act(view)
        m.act(act)
    return taken, styles


def test_three_simple_players_are_taken_for_simple_and_medium_ones_never() -> None:
    """No evidence at the first call; by the third round's first call three spar-simple
    players are taken for simple, three spar-simple-high players for simple with that
    hand order, and three whose hands run clubs first for an order that leads clubs
    first; three medium players stay medium's all match."""
    for seed in (1, 2):
        _, styles = play_match(HardBot(seed=seed, iterations=300, call_deals=20, opp=2), SimpleBot, seed, 3)
        assert styles[0] == [0, 0, 0, 0] and styles[2] == [SIMPLE, 0, SIMPLE, SIMPLE]
        _, styles = play_match(HardBot(seed=seed, iterations=300, call_deals=20, opp=2), SimpleHighBot, seed, 3)
        assert styles[0] == [0, 0, 0, 0] and styles[2] == [SIMPLE_HIGH, 0, SIMPLE_HIGH, SIMPLE_HIGH]
        hero = HardBot(seed=seed, iterations=300, call_deals=20, opp=2)
        _, styles = play_match(hero, SimpleClubsBot, seed, 4)
        assert styles[0] == [0, 0, 0, 0]
        # its cards are nearer medium's than spar-simple's are: some seats take longer
        taken = [style for seat, style in enumerate(styles[3]) if seat != 1 and style != 0]
        assert len(taken) >= 2
        for style in taken:
            assert 1 <= style <= 24 and kernel.SUIT_ORDERS[style - 1][0] == 3  # from the 2 up, clubs first
        assert hero.tally.evidence()[1 + 23].tolist() == [0, 0, 0, 0]  # its own order misses none
        _, styles = play_match(HardBot(seed=seed, iterations=300, call_deals=20, opp=2), MediumBot, seed, 3)
        assert styles == [[0, 0, 0, 0]] * 3


def test_a_new_match_starts_with_no_evidence() -> None:
    hero = HardBot(seed=1, iterations=300, call_deals=20, opp=2)
    play_match(hero, SimpleBot, 1)
    _, styles = play_match(hero, SimpleBot, 2)
    assert styles[0] == [0, 0, 0, 0]


def test_while_no_seat_is_taken_for_simple_it_decides_as_the_medium_model() -> None:
    """Against three medium players the inferred styles stay medium's, so ``opp=2``
    makes every decision that ``opp=0`` makes with the same seed."""
    rng = random.Random(5)
    for _ in range(2):
        seed = rng.randrange(1000)
        inferred, _ = play_match(HardBot(seed=seed, iterations=300, call_deals=20, opp=2), MediumBot, seed)
        default, _ = play_match(HardBot(seed=seed, iterations=300, call_deals=20, opp=0), MediumBot, seed)
        assert inferred == default and len(inferred) == 2 * 14


def last_trick_styles(hero: HardBot, seed: int, rounds: int = 2) -> list[list[int]]:
    """Against three SimpleBots, ``hero`` (seat 1)'s styles at its last card of each round."""
    m = Match(RULES.replace(rounds=rounds), seed=seed)
    bots = [SimpleBot(seed=s) for s in range(4)]
    out = []
    while not m.is_over:
        seat = m.to_act
        view = m.view(seat)
        if seat == 1 and view.phase == "playing" and len(view.hand) == 1:
            out.append(hero.styles(view, Knowledge.from_view(view), 0).tolist())
        m.act(hero.act(view) if seat == 1 else bots[seat].act(view))
    return out


def test_without_memory_only_the_round_in_progress_counts() -> None:
    """``memory=0``: what a served bot, reset before each decision, can know.  Each
    round's first call finds no evidence; the round's own cards are evidence (by its last
    trick a seat is taken for simple), and the rounds before add to it only with memory."""
    _, styles = play_match(HardBot(seed=1, iterations=300, call_deals=20, opp=2, memory=0), SimpleBot, 1, 3)
    assert styles == [[0, 0, 0, 0]] * 3
    # the hero's play decides which cards the others show: without look, the play this test was written on
    without = last_trick_styles(HardBot(seed=1, iterations=300, call_deals=20, opp=2, memory=0, look=0), 3)
    kept = last_trick_styles(HardBot(seed=1, iterations=300, call_deals=20, opp=2, look=0), 3)
    assert without[0] == kept[0] == [1, 0, 1, 0]  # seats 0 and 2 shown simple in the first round
    assert without[1] == [1, 0, 0, 1] and kept[1] == [1, 0, 1, 1]  # seat 2 only with memory


def test_reset_forgets_the_match() -> None:
    """A bot reset mid-match (as a served table does before each decision) has no evidence
    left from the rounds before."""
    hero = HardBot(seed=1, iterations=300, call_deals=20, opp=2)
    m = Match(RULES.replace(rounds=3), seed=1)
    bots = [SimpleBot(seed=s) for s in range(4)]
    while not m.is_over:
        seat = m.to_act
        view = m.view(seat)
        if seat == 1 and view.round_number == 3:
            k = Knowledge.from_view(view)
            assert hero.styles(view, k, 0).tolist() == [1, 0, 1, 1]
            hero.reset(7)
            assert hero.styles(view, k, 0).tolist() == [0, 0, 0, 0]
            break
        m.act(hero.act(view) if seat == 1 else bots[seat].act(view))
    else:
        raise AssertionError("round 3 never reached seat 1")


def test_a_hard_bot_behind_until_ready_keeps_the_match_when_never_reset() -> None:
    """The terminal's game plays one `UntilReady` hard bot a seat for a whole match, never
    reset and never told the earlier rounds: once the kernel is ready the bot keeps what it saw
    itself, so at round 3's first call it holds the cards of rounds 1 and 2 (12 of each seat's a
    round: what its last choice of the round saw; its one-card last tricks are no choice)."""
    from callbreak.bots.warmup import KERNEL, UntilReady

    KERNEL.start()
    assert KERNEL.wait(600)
    strong = HardBot(seed=1, iterations=300, call_deals=20)
    hero = UntilReady(strong, MediumBot(seed=1), KERNEL)
    m = Match(RULES.replace(rounds=3), seed=1)
    bots: list[Bot] = [SimpleBot(seed=s) for s in range(4)]
    while not (m.round_number == 3 and m.to_act == 1):
        seat = m.to_act
        view = m.view(seat)
        m.act(hero.act(view) if seat == 1 else bots[seat].act(view))
    hero.act(m.view(1))
    assert strong.tally.evidence()[-1].tolist() == [24, 0, 24, 24]


def test_seats_taken_for_simple_are_expected_to_fall_behind_in_the_rounds_to_come() -> None:
    """``drift``: once three ``spar-simple`` seats are recognised, both searches value a round's
    outcome with each of their totals lowered by ``drift`` points for every round still to come
    after this one; ``drift=0`` values it on the match's totals, as against medium seats."""
    m = Match(RULES, seed=3)
    while m.round_number < 3:
        m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    calling = m.view(m.to_act)
    earlier = list(m.rounds)
    while m.round.phase == "calling" or m.to_act != calling.seat:  # on to the same seat's first card
        m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    playing = m.view(calling.seat)
    calls, cards = {}, {}
    for drift in (1.6, 0.0):
        bot = HardBot(seed=1, iterations=300, call_deals=40, drift=drift)
        bot.recall([r.view(calling.seat) for r in earlier])
        styles = bot.styles(calling, Knowledge.from_view(calling), 0)
        assert [s for s in range(4) if styles[s]] == [s for s in range(4) if s != calling.seat]
        totals, sd = bot.match_stakes(calling, styles)
        own, own_sd = bot.match_stakes(calling)
        assert calling.rounds == 5 and calling.round_number == 3 and sd == own_sd
        assert totals.tolist() == pytest.approx(
            [t - (0.0 if s == calling.seat else drift * 2) for s, t in enumerate(own.tolist())]
        )
        calls[drift] = bot.choose_call(calling)[1]
        cards[drift] = bot.choose(playing)[1]
    assert calls[1.6] != calls[0.0]  # the call search values by the moved totals
    assert cards[1.6] != cards[0.0]  # and so does the card search
    with pytest.raises(ValueError, match="drift"):
        HardBot(seed=1, drift=-1.0)
