"""The kernel's port of the medium level's card (used in hard's playouts) agrees
exactly with `callbreak.bots.medium.choose_card`, under random rules."""

from __future__ import annotations

import random

import numpy as np

from callbreak.bots import kernel
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import choose_card
from callbreak.bots.playouts import public_cannot
from tests.bots.helpers import called_round, medium_match_views, trick_array


def test_ported_medium_card_matches_medium() -> None:
    rng = random.Random(11)
    checked = 0
    for game in range(120):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            view = rnd.view(seat)
            k = Knowledge.from_view(view)
            want, why = choose_card(view, k)
            trick = trick_array(c for _, c in view.trick)
            got = kernel.medium_card(
                np.array(rnd.hand_masks, dtype=np.int64),
                seat,
                trick,
                len(view.trick),
                P,
                np.array(view.tricks_won, dtype=np.int64),
                np.array([c or 0 for c in view.calls], dtype=np.int64),
                np.array(public_cannot(view, k), dtype=np.int64),
                len(view.tricks),
                k.played,
            )
            assert got == int(want), (rules.to_dict(), view.to_dict(), str(want), why)
            checked += 1
            # a mix of medium's and random cards reaches more kinds of position
            rnd.play(want if game % 2 else rng.choice(rnd.legal_cards()))
    assert checked == 120 * 52


def test_true_deal_is_consistent_with_medium_play_and_kept_deals_are_closest() -> None:
    """Against three medium opponents the real deal never disagrees with their
    play, and `consistent_deals` keeps the deals that disagree least."""
    from callbreak import Match, Ruleset
    from callbreak.bots.determinize import consistent_deals, play_record, sample_deals

    checked = 0
    for seed in range(3):
        m = Match(Ruleset.preset("standard", rounds=1), seed=seed, dealer=0)
        for view in medium_match_views(m):
            if view.phase == "playing" and view.seat == 0 and view.tricks:
                k = Knowledge.from_view(view)
                args = play_record(view, k)
                true = np.array([m.round.hand_masks], dtype=np.int64)
                assert kernel.mismatches(true, *args).tolist() == [0]
                kept = consistent_deals(view, k, 6, 5, random.Random(seed))
                pool = sample_deals(view, k, 30, random.Random(seed))
                assert len(kept) == 6
                worst_kept = kernel.mismatches(np.array(kept, dtype=np.int64), *args).max()
                dropped = [d for d in pool if d not in kept]
                if dropped:  # (late in a round the pool may hold few distinct deals)
                    assert worst_kept <= kernel.mismatches(np.array(dropped, dtype=np.int64), *args).min()
                for d in kept:
                    assert d[0] == k.hand and all(d[s] & k.cannot[s] == 0 for s in range(1, 4))
                checked += 1
    assert checked > 20


def test_refine_keeps_every_constraint_and_moves_towards_the_play() -> None:
    """`refine_deals` swaps cards only where the view allows them (same sizes, no
    card a seat cannot hold, this seat's hand untouched), and the deals it ends
    with disagree less with three medium opponents' play than the ones it started
    from; with zero steps it changes nothing."""
    from callbreak import Match, Ruleset
    from callbreak.bots.determinize import play_record, refine_deals, sample_deals

    before = after = 0.0
    checked = 0
    for seed in range(3):
        m = Match(Ruleset.preset("bhoos", rounds=1), seed=seed, dealer=0)
        for view in medium_match_views(m):
            if view.phase == "playing" and view.seat == 0 and 2 <= len(view.tricks) <= 9:
                k = Knowledge.from_view(view)
                deals = sample_deals(view, k, 40, random.Random(seed))
                assert refine_deals(view, k, deals, 0, 1, 2.0) == deals
                moved = refine_deals(view, k, deals, 30, seed + len(view.tricks), 3.0)
                assert len(moved) == len(deals)
                for d in moved:
                    assert d[0] == k.hand
                    assert d[1] | d[2] | d[3] == k.unseen
                    assert d[1] & d[2] == 0 and d[1] & d[3] == 0 and d[2] & d[3] == 0
                    for s in range(1, 4):
                        assert d[s].bit_count() == k.sizes[s] and d[s] & k.cannot[s] == 0
                args = play_record(view, k)
                before += float(kernel.mismatches(np.array(deals, dtype=np.int64), *args).mean())
                after += float(kernel.mismatches(np.array(moved, dtype=np.int64), *args).mean())
                checked += 1
    assert checked >= 15
    assert after < 0.6 * before, (before, after)


def test_call_ranges_hold_each_medium_callers_true_estimate() -> None:
    """The medium level's call depends on its hand only through the calling
    model's estimate, so the range `call_ranges` gives each other seat holds the
    estimate of the hand it really had, at every point of a match (the totals
    tilt the calls in later rounds)."""
    from callbreak import Match, Ruleset
    from callbreak.bots.calling import call_position, earlier_calls, load_model
    from callbreak.bots.determinize import call_ranges

    checked = 0
    for seed in range(4):
        rules = Ruleset.preset("bhoos" if seed % 2 else "standard")
        model = load_model("head")
        m = Match(rules, seed=seed)
        for view in medium_match_views(m):
            if view.phase == "playing" and not view.tricks and not view.trick:
                lo, hi = call_ranges(view, model)
                for s in range(4):
                    if s == view.seat:
                        assert lo[s] == -float("inf") and hi[s] == float("inf")
                        continue
                    mu = model.mean(
                        m.round.hand_masks[s],
                        rules.trump_index,
                        call_position(s, view.dealer),
                        earlier_calls(view, s),
                    )
                    assert lo[s] - 1e-3 <= mu <= hi[s] + 1e-3, (s, view.calls, lo, hi, mu)
                    assert lo[s] < hi[s]
                    checked += 1
    assert checked >= 60


def test_refine_chains_give_their_later_states() -> None:
    """With ``keep`` above 1 each start is one chain: its ``k``-th deal is the
    state a plain refine reaches after ``steps + k * every`` steps from the same
    start and seed; several starts give ``keep`` deals each, and every one still
    keeps the view's constraints."""
    from callbreak import Match, Ruleset
    from callbreak.bots.determinize import refine_deals, sample_deals

    checked = 0
    m = Match(Ruleset.preset("bhoos", rounds=1), seed=11, dealer=0)
    for view in medium_match_views(m):
        if view.phase == "playing" and view.seat == 2 and 3 <= len(view.tricks) <= 8:
            k = Knowledge.from_view(view)
            deals = sample_deals(view, k, 6, random.Random(checked))
            chain = refine_deals(view, k, deals[:1], 7, 99 + checked, 3.0, keep=4, every=5)
            assert len(chain) == 4
            for i, d in enumerate(chain):
                assert d == refine_deals(view, k, deals[:1], 7 + 5 * i, 99 + checked, 3.0)[0]
            assert len({tuple(d) for d in chain}) > 1  # the chain moves
            many = refine_deals(view, k, deals, 7, 5, 3.0, keep=3, every=4)
            assert len(many) == 3 * len(deals)
            for d in many:
                assert d[view.seat] == k.hand and d[0] | d[1] | d[3] == k.unseen
                for s in range(4):
                    assert d[s].bit_count() == k.sizes[s] and d[s] & k.cannot[s] == 0
            checked += 1
    assert checked >= 4


def test_mismatches_count_what_medium_would_have_played_on_any_deal() -> None:
    """On deals that are not the real one, `kernel.mismatches` (which reads the
    public state before each card from `kernel.inference._history`) counts exactly the other
    seats' cards so far that `callbreak.bots.medium.choose_card` would not have
    played with the hands the deal gives them: the round replayed on the engine."""
    from callbreak import Card, Match, Round, Ruleset
    from callbreak.bots.determinize import play_record, sample_deals, tricks_so_far

    checked = nonzero = 0
    for seed, preset in ((3, "bhoos"), (4, "standard")):
        m = Match(Ruleset.preset(preset, rounds=1), seed=seed, dealer=1)
        for view in medium_match_views(m):
            if view.phase != "playing" or view.seat != 2 or not 2 <= len(view.tricks) <= 10:
                continue
            k = Knowledge.from_view(view)
            record = play_record(view, k)
            for deal in sample_deals(view, k, 4, random.Random(seed)):
                rnd = Round(
                    view.rules,
                    [[Card(c) for c in range(52) if (deal[s] | k.played_by[s]) >> c & 1] for s in range(4)],
                    dealer=view.dealer,
                )
                while rnd.phase == "calling":
                    rnd.call(view.calls[rnd.to_act])  # type: ignore[index]
                want = 0
                for _, cards in tricks_so_far(view):
                    for c in cards:
                        seat = rnd.to_act
                        assert seat is not None
                        if seat != view.seat:
                            v = rnd.view(seat)
                            want += choose_card(v, Knowledge.from_view(v))[0] != c
                        rnd.play(c)
                got = int(kernel.mismatches(np.array([deal], dtype=np.int64), *record)[0])
                assert got == want, (view.to_dict(), deal)
                checked += 1
                nonzero += want > 0
    assert checked >= 40 and nonzero >= 10, (checked, nonzero)
