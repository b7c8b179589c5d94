"""The pure table state: the shared-work per-seat JSON equals each seat's own view."""

from __future__ import annotations

import random

import orjson

from callbreak import Ruleset
from callbreak.server.table import TableMeta, TableState


def test_states_json_equals_each_seats_state_at_every_step() -> None:
    rng = random.Random(3)
    for seed, rules in ((1, Ruleset(rounds=2)), (2, Ruleset.preset("bhoos", rounds=1)), (3, Ruleset.preset("pagat"))):
        t = TableState(TableMeta(id="t", invite="i", rules=rules, bots="random", seed=seed, created=0.0))
        t.apply({"t": "seat", "seat": 1, "name": "A", "token": "k" * 22})
        t.apply({"t": "start"})
        steps = 0
        while t.status != "over" and steps < 400:
            every = t.states_json([0, 1, 2, 3, -1])
            for s, text in every.items():
                assert orjson.loads(text) == t.state(s), (s, steps)
            if t.status == "between_rounds":
                t.apply({"t": "end"} if rules.rounds is None else {"t": "next"})
                continue
            rnd = t.match.round  # type: ignore[union-attr]
            if rnd.phase == "calling":
                t.apply({"t": "call", "seat": t.to_act, "call": rng.choice(rnd.legal_calls())})
            else:
                t.apply({"t": "play", "seat": t.to_act, "card": str(rng.choice(rnd.legal_cards()))})
            steps += 1
        every = t.states_json([0, -1])
        assert orjson.loads(every[0]) == t.state(0) and orjson.loads(every[-1]) == t.state(-1)
