"""The pure table state: the shared-work per-seat JSON (`render.StateRender`) is each seat's own view."""

from __future__ import annotations

import random

import orjson
import pytest

from callbreak import Match, Ruleset
from callbreak.analysis.practice import position_of
from callbreak.server.render import StateRender
from callbreak.server.table import TableMeta, TableState

_PRIVATE = ("seat", "hand", "legal_calls", "legal_cards")


def _expected(state: dict[str, object] | None) -> str:
    """`TableState.state` as the text the renderer gives: the public keys in order, then the seat's."""
    if state is None:
        return "null"
    return orjson.dumps({**{k: v for k, v in state.items() if k not in _PRIVATE}, **{k: state[k] for k in _PRIVATE}}).decode()


def test_states_json_equals_each_seats_state_at_every_step() -> None:
    """Text for text, at every step of whole matches (redeals, sudden death, an endless match
    ended by its host, an abandoned one), by the table's own renderer (which keeps the rules,
    finished tricks, totals and last round between events) and by a fresh one (a table loaded
    from the store mid-round)."""
    rng = random.Random(3)
    cases = (
        (1, Ruleset(rounds=2), None),
        (2, Ruleset.preset("bhoos", rounds=1), None),
        (3, Ruleset.preset("pagat"), None),
        (4, Ruleset(rounds=3, redeal_without_trump=True, redeal_without_face_card=True, min_total_calls=9), None),
        (26, Ruleset(rounds=1, overtrick_points=0), None),  # a tie at the top: sudden death
        (5, Ruleset(rounds=None), "end"),
        (6, Ruleset(rounds=4), "abandon"),
    )
    for seed, rules, finish in cases:
        t = TableState(TableMeta(id="t", invite="i", rules=rules, bots="random", seed=seed, created=0.0))
        t.apply({"t": "seat", "seat": 1, "name": "A", "token": "k" * 22})
        assert t.states_json([1, -1]) == {1: "null", -1: "null"}
        t.apply({"t": "start"})
        steps = 0
        seen = set()
        while t.status not in ("over", "abandoned") and steps < 400:
            every = t.states_json([0, 1, 2, 3, -1])
            fresh = StateRender().parts(t.match, t.status == "between_rounds", [0, 1, 2, 3, -1])  # type: ignore[arg-type]
            for s, text in every.items():
                assert text == _expected(t.state(s)) == fresh[0] + "," + fresh[1][s], (seed, s, steps)
            seen.add(t.status)
            if t.status == "between_rounds":
                if finish == "abandon":
                    t.apply({"t": "abandon"})
                else:
                    t.apply({"t": "end"} if rules.rounds is None else {"t": "next"})
                continue
            rnd = t.match.round  # type: ignore[union-attr]
            if rnd.phase == "calling":
                t.apply({"t": "call", "seat": t.to_act, "call": rng.choice(rnd.legal_calls())})
            else:
                t.apply({"t": "play", "seat": t.to_act, "card": str(rng.choice(rnd.legal_cards()))})
            steps += 1
        assert "between_rounds" in seen or rules.rounds == 1, seed
        assert t.status == ("abandoned" if finish == "abandon" else "over"), (seed, t.status)
        every = t.states_json([0, 1, 2, 3, -1])
        for s, text in every.items():
            assert text == _expected(t.state(s)), (seed, s)


def test_a_table_that_cannot_start_keeps_its_lobby_as_it_was() -> None:
    """Bad input changes nothing: a practice position whose actions do not replay (here a call
    out of range) refuses the start, and the lobby's empty seats are not given to bots."""
    m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    for a in (2, 3, 2, 3):
        m.act(a)
    broken = position_of(m, 0, 2).to_dict()
    broken["actions"] = [2, 99]  # (no one calls 99)
    t = TableState(TableMeta(id="t", invite="i", rules=Ruleset(rounds=1), bots="random", seed=1, created=0.0,
                             practice=broken))
    t.apply({"t": "seat", "seat": 1, "name": "A", "token": "k" * 22})
    before = [(s.name, s.kind) for s in t.seats]
    with pytest.raises(ValueError, match="99"):
        t.apply({"t": "start"})
    assert [(s.name, s.kind) for s in t.seats] == before and t.status == "lobby" and t.match is None


def test_a_practice_tables_bots_take_the_matchs_names_at_their_seats() -> None:
    """The analysis names who played what: a position played again keeps each seat's name (before,
    new names read as other players), but the practising player's own, which a bot does not repeat."""
    m = Match(Ruleset.preset("quick", rounds=1), seed=3, players=["Ritu", "Hari", "Aarav", "Gita"])
    for a in (2, 3, 2, 3):
        m.act(a)

    def started(flag: dict[str, str], player: str) -> list[str]:
        t = TableState(TableMeta(id="t", invite="i", rules=Ruleset(rounds=1), bots="random", seed=1, created=0.0,
                                 practice={**position_of(m, 0, 2).to_dict(), **flag}))
        t.apply({"t": "seat", "seat": 2, "name": player, "token": "k" * 22})  # Aarav's seat played again
        t.apply({"t": "start"})
        assert [s.kind for s in t.seats].count("bot") == 3
        return [s.name for s in t.seats]

    names = started({"names": "seats"}, "hari k")  # (read as Hari: that bot takes another name)
    assert names[0] == "Ritu" and names[2] == "hari k" and names[3] == "Gita", names
    assert names[1] not in ("Ritu", "Hari", "Aarav", "Gita"), names
    # a practice table made before the rule keeps the names it was dealt (its log rebuilds it so)
    before = started({}, "hari k")
    assert not {"Ritu", "Hari", "Gita"} & set(before), before
