"""The kernel's port of the medium level's card (used in hard's playouts) agrees
exactly with `callbreak.bots.medium.choose_card`, under random rules."""

from __future__ import annotations

import random

import numpy as np

from callbreak.bots import kernel
from callbreak.bots.hard import public_cannot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import choose_card
from tests.bots.helpers import called_round, trick_array


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
    from callbreak.bots.hard import consistent_deals, sample_deals, tricks_so_far
    from callbreak.bots.medium import MediumBot

    checked = 0
    for seed in range(3):
        m = Match(Ruleset.preset("standard", rounds=1), seed=seed, dealer=0)
        bots = [MediumBot(seed=s) for s in range(4)]
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            view = m.view(seat)
            if view.phase == "playing" and seat == 0 and view.tricks:
                k = Knowledge.from_view(view)
                seats, cards = [], []
                tricks = tricks_so_far(view)
                for leader, cs in tricks:
                    for i, c in enumerate(cs):
                        seats.append((leader + i) & 3)
                        cards.append(int(c))
                args = (
                    0,
                    np.array(seats, dtype=np.int64),
                    np.array(cards, dtype=np.int64),
                    tricks[0][0],
                    kernel.rules_array(view.rules),
                    np.array([c or 0 for c in view.calls], dtype=np.int64),
                    np.array(k.played_by, dtype=np.int64),
                )
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
            m.act(bots[seat].act(view))
    assert checked > 20
