"""``adapt``: a seat whose cards the medium level's rules do not explain weighs less
in hard's deal inference."""

from __future__ import annotations

import random

from callbreak import Match, Ruleset
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import MediumBot


def test_a_seat_playing_at_random_costs_less_than_the_medium_seats() -> None:
    rng = random.Random(1)
    rand_seat: list[float] = []
    medium_seats: list[float] = []
    for seed in range(3):
        m = Match(Ruleset.preset("bhoos", rounds=1), seed=seed, dealer=3)
        medium = [MediumBot(s) for s in range(4)]
        bot = HardBot(seed=1, adapt=0.25)
        while (seat := m.to_act) is not None:
            v = m.view(seat)
            if v.phase == "playing" and seat == 0 and len(v.tricks) == 6:
                k = Knowledge.from_view(v)
                costs = bot.seat_costs(v, k, bot.deals(v, k, 8, 5, 1, 0, 1), 100, 5)
                assert costs[0] == bot.miss_cost  # its own seat: untouched (and unused)
                assert HardBot(seed=1).seat_costs(v, k, [], 100, 5) == [6.0] * 4  # adapt=0: one cost for all
                rand_seat.append(costs[1])
                medium_seats += costs[2:]
                break
            m.act(rng.choice(v.legal_cards) if seat == 1 and v.phase == "playing" else medium[seat].act(v))
    assert sum(rand_seat) / 3 < 0.25 * sum(medium_seats) / 6
