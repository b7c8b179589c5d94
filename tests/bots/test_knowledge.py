"""Inference from a view never rules out the true deal; sampled deals obey it."""

from __future__ import annotations

import random

from callbreak import Round, Ruleset
from callbreak.bots.knowledge import Knowledge
from tests.bots.helpers import random_rules


def test_true_hands_are_always_possible_and_samples_are_consistent() -> None:
    rng = random.Random(3)
    inferred = 0
    for _ in range(120):
        rules = random_rules(rng).replace(redeal_without_trump=False, min_total_calls=0)
        rnd = Round(rules, Round.deal_hands(rng.randrange(1 << 30)), dealer=rng.randrange(4))
        while rnd.phase == "calling":
            rnd.call(rng.choice(rnd.legal_calls()))
        while rnd.phase == "playing":
            if rng.random() < 0.25:
                seat = rng.randrange(4)
                k = Knowledge.from_view(rnd.view(seat))
                hands = rnd.hand_masks
                for s in range(4):
                    assert hands[s] & k.cannot[s] == 0, (rules.to_dict(), s)
                    assert hands[s] & ~k.possible(s) == 0
                    if s != seat:
                        inferred += (k.cannot[s] & k.unseen).bit_count()
                deal = k.sample(rng)
                assert deal[seat] == hands[seat]
                assert [d.bit_count() for d in deal] == [h.bit_count() for h in hands]
                union = 0
                for s in range(4):
                    assert deal[s] & union == 0
                    union |= deal[s]
                    assert deal[s] & k.cannot[s] == 0
                assert union == hands[0] | hands[1] | hands[2] | hands[3]
            rnd.play(rng.choice(rnd.legal_cards()))
    assert inferred > 1000  # the inference does rule cards out


def test_voids_and_did_not_head() -> None:
    from callbreak import Ruleset
    from callbreak.cards import Card

    # seat 0 leads 2H; seat 1 follows low (3H) under must_head while 9H was not headed: not possible,
    # so build it: 0 leads 5H, 1 plays 3H (could not head 5H: holds nothing above 5H), 2 discards a club
    # with no spade on the trick (void in hearts and holds no spade), 3 plays a spade
    hands = [
        ["5H", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S"],
        ["3H", "2H", "2S", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
        ["4H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "2D", "3D", "4D"],
    ]
    rnd = Round(Ruleset(), hands, dealer=3)
    for n in (3, 3, 3, 3):
        rnd.call(n)
    for c in ("5H", "3H", "2C", "6H"):
        rnd.play(c)
    k = Knowledge.from_view(rnd.view(3))
    h = 0x1FFF << 13
    assert k.cannot[1] & h == h & ~((2 << int(Card.parse("5H"))) - 1)  # nothing above 5H
    assert k.void(2, 1) and k.void(2, 0)  # no hearts, no spades
    assert not k.void(1, 1)


def test_compiled_sampler_obeys_the_knowledge_and_the_model() -> None:
    import numpy as np

    from callbreak.bots import kernel
    from callbreak.bots.calling import load_model
    from callbreak.bots.determinize import sample_deals

    model = load_model()
    w = np.array(model.weights)
    rng = random.Random(8)
    for _ in range(200):
        hand = sum(1 << c for c in rng.sample(range(52), 13))
        t, pos, earlier = rng.randrange(4), rng.randrange(4), rng.randrange(12)
        assert abs(kernel.features._hand_mean(hand, t, pos, earlier, w) - model.mean(hand, t, pos, earlier)) < 1e-9
    for _ in range(40):
        rules = random_rules(rng).replace(redeal_without_trump=False, min_total_calls=0)
        rnd = Round(rules, Round.deal_hands(rng.randrange(1 << 30)), dealer=rng.randrange(4))
        while rnd.phase == "calling":
            rnd.call(rng.choice(rnd.legal_calls()))
        for _ in range(rng.randrange(40)):
            rnd.play(rng.choice(rnd.legal_cards()))
        seat = rnd.to_act
        assert seat is not None
        v = rnd.view(seat)
        k = Knowledge.from_view(v)
        deals = sample_deals(v, k, 30, rng)
        assert len(deals) == 30
        for deal in deals:
            assert deal[seat] == k.hand
            assert [d.bit_count() for d in deal] == list(k.sizes)
            assert deal[0] | deal[1] | deal[2] | deal[3] == k.unseen | k.hand
            for s in range(4):
                assert deal[s] & k.cannot[s] == 0


def test_has_deal_is_whether_a_search_finds_a_deal() -> None:
    """`Knowledge.has_deal` against a depth-first search for a deal (`Knowledge._exact_sample`),
    on knowledge with random cards ruled out for the other seats: both answers occur."""
    rng = random.Random(7)
    answers = []
    for game in range(300):
        r = Round(Ruleset.preset("bhoos"), Round.deal_hands(seed=game), dealer=3)
        for _ in range(rng.randrange(4, 40)):
            r.act(r.legal_cards()[0] if r.phase == "playing" else r.legal_calls()[0])
        view = r.view(r.to_act)
        k = Knowledge.from_view(view)
        others = [s for s in range(4) if s != k.seat]
        for s in others:
            k = k.ruling_out(s, k.unseen & rng.getrandbits(52) & rng.getrandbits(52))
        found = k._exact_sample(rng, others) is not None
        assert k.has_deal() == found
        answers.append(found)
    assert 0 < sum(answers) < len(answers)
