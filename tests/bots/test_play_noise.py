"""The hard bot's ``play_noise`` and ``play_mix``: the other seats' playout cards mixed with
random legal ones, or whole playouts of a seat played greedily."""

from __future__ import annotations

import random

import numpy as np
import pytest

from callbreak import Match, Ruleset
from callbreak.bots import kernel
from callbreak.bots.easy import _beats
from callbreak.bots.hard import HardBot, decode_outcomes, sample_deals, search_values
from callbreak.bots.knowledge import Knowledge
from callbreak.round import SeatView, lowest_action
from tests.bots.helpers import called_round, trick_array

#: the decisions of a 1-round bhoos match (seed 11) between four
#: ``HardBot(seed=s, iterations=300, call_deals=30)``, as the bot made them before
#: ``play_noise`` existed (commit fe5e4ad): the four calls, then the cards in order
BEFORE = [4, 4, 1, 2, 25, 23, 18, 16, 36, 29, 37, 38, 35, 28, 31, 26, 46, 50, 51, 45, 1, 5, 8, 11, 39, 40, 49, 42]
BEFORE += [27, 32, 0, 2, 24, 20, 17, 13, 41, 6, 44, 14, 30, 9, 15, 12, 43, 7, 47, 19, 33, 10, 21, 48, 22, 3, 4, 34]


def _decisions(**settings: float) -> list[int]:
    m = Match(Ruleset.preset("bhoos", rounds=1), seed=11)
    bots = [HardBot(seed=s, iterations=300, call_deals=30, **settings) for s in range(4)]  # type: ignore[arg-type]
    out: list[int] = []
    while (seat := m.to_act) is not None:
        out.append(int(bots[seat].act(m.view(seat))))
        m.act(out[-1])
    return out


def _cheapest(cards: list[int], t: int) -> int:
    """The cheapest of ``cards``: side suits before trumps (suit ``t``), then the lowest rank."""
    return min(cards, key=lambda c: (c // 13 == t, c % 13))


def _playing_view() -> SeatView:
    m = Match(Ruleset.preset("bhoos", rounds=1), seed=3)
    for c in (2, 3, 1, 4):
        m.call(c)
    for _ in range(6):
        m.act(lowest_action(m.view(m.to_act)))  # type: ignore[arg-type]
    return m.view(m.to_act)  # type: ignore[arg-type]


def test_no_noise_and_no_mix_give_the_decisions_made_before_the_settings() -> None:
    assert _decisions(play_noise=0.0, play_mix=0.0) == BEFORE


def test_a_noisy_card_is_always_legal_and_zero_noise_draws_nothing() -> None:
    rng = random.Random(7)
    stream = np.array([12345], dtype=np.int64)
    drawn = 0
    for _ in range(20):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            lm = kernel.legal_mask(
                rnd.hand_masks[seat], trick_array(rnd.trick), len(rnd.trick), P, rnd.trick_number, rnd.played_mask
            )
            before = int(stream[0])
            assert kernel.noisy_card(stream, 0, lm) == -1 and int(stream[0]) == before
            legal = {int(c) for c in rnd.legal_cards()}
            seen = {kernel.noisy_card(stream, 1000, lm) for _ in range(40)}
            assert seen <= legal, (rules.to_dict(), rnd)
            drawn += len(seen)
            if len(legal) == 2:
                assert seen == legal  # uniform: 40 draws of two cards show both
            rnd.play(rng.choice(rnd.legal_cards()))
    assert drawn > 20 * 52  # positions with a choice showed more than one card


def test_the_greedy_card_is_the_cheapest_winner_else_the_cheapest_card() -> None:
    rng = random.Random(8)
    wins = 0
    for _ in range(30):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        t = rules.trump_index
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            lm = kernel.legal_mask(
                rnd.hand_masks[seat], trick_array(rnd.trick), len(rnd.trick), P, rnd.trick_number, rnd.played_mask
            )
            got = kernel.greedy_card(lm, trick_array(rnd.trick), len(rnd.trick), t)
            legal = rnd.legal_cards()
            winners: list[int] = []
            if rnd.trick:
                best = rnd.trick[0]
                for c in rnd.trick[1:]:
                    best = c if _beats(c, best, t) else best
                winners = [c for c in legal if _beats(c, best, t)]
            assert got == _cheapest(winners or legal, t), (rules.to_dict(), rnd)
            wins += bool(winners)
            rnd.play(rng.choice(legal))
    assert wins > 100  # the winning branch was met, not only the cheapest card


def test_noise_is_seeded_and_changes_the_playouts() -> None:
    v = _playing_view()
    k = Knowledge.from_view(v)
    deals = sample_deals(v, k, 40, random.Random(1))
    quiet = search_values(v, k, deals, seed=1, medium_playouts=True)
    noisy = search_values(v, k, deals, seed=1, medium_playouts=True, noise=250)
    assert np.array_equal(noisy, search_values(v, k, deals, seed=1, medium_playouts=True, noise=250))
    assert not np.array_equal(noisy, quiet)
    assert np.array_equal(quiet, search_values(v, k, deals, seed=1, medium_playouts=True, noise=0))


def test_all_noise_call_playouts_play_every_trick() -> None:
    m = Match(Ruleset.preset("bhoos", rounds=1), seed=5, dealer=0)
    view = m.view(m.to_act)  # type: ignore[arg-type]
    cands = [1, 2, 3, 4]
    tables = []
    for mpol in (1, 2):  # the fast policy and the medium level's rules for this seat
        bot = HardBot(seed=1, play_noise=1.0, mpol=mpol)
        deals = bot.deals(view, Knowledge.from_view(view), 30, 11, 1, 0, 1)
        totals, sd = bot.match_stakes(view)
        outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
        tables.append(bot.call_table(view, deals, cands, totals, sd, 5, outcomes))
        won, calls = decode_outcomes(outcomes)
        assert (won.sum(axis=2) == 13).all()
        assert (calls[:, :, view.seat] == np.array(cands)).all()
        again = np.zeros_like(outcomes)
        assert np.array_equal(bot.call_table(view, deals, cands, totals, sd, 5, again), tables[-1])
        assert np.array_equal(again, outcomes)
    quiet = HardBot(seed=1, play_noise=0.0)
    deals = quiet.deals(view, Knowledge.from_view(view), 30, 11, 1, 0, 1)
    totals, sd = quiet.match_stakes(view)
    assert not np.array_equal(quiet.call_table(view, deals, cands, totals, sd, 5), tables[0])


def test_a_noisy_bot_replays_under_its_seed() -> None:
    first = _decisions(play_noise=0.25)
    assert first == _decisions(play_noise=0.25)
    assert first != BEFORE  # the noise reaches the decisions


def test_greedy_seats_are_seeded_and_change_the_playouts() -> None:
    v = _playing_view()
    k = Knowledge.from_view(v)
    deals = sample_deals(v, k, 40, random.Random(1))
    quiet = search_values(v, k, deals, seed=1, medium_playouts=True)
    mixed = search_values(v, k, deals, seed=1, medium_playouts=True, mix=500)
    assert np.array_equal(mixed, search_values(v, k, deals, seed=1, medium_playouts=True, mix=500))
    assert not np.array_equal(mixed, quiet)
    assert np.array_equal(quiet, search_values(v, k, deals, seed=1, medium_playouts=True, mix=0))


def test_a_mixed_bot_replays_under_its_seed() -> None:
    first = _decisions(play_mix=0.5)
    assert first == _decisions(play_mix=0.5)
    assert first != BEFORE


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_play_noise_and_play_mix_are_shares(share: float) -> None:
    with pytest.raises(ValueError, match="play_noise"):
        HardBot(seed=1, play_noise=share)
    with pytest.raises(ValueError, match="play_mix"):
        HardBot(seed=1, play_mix=share)
    bot = HardBot(seed=1, play_noise=0.25, play_mix=0.5)
    assert (bot.noise, bot.mix) == (250, 500)
