"""Bots' names: one rule (callbreak.bots.names) for the web tables and the terminal."""

from __future__ import annotations

import pytest

from callbreak import Ruleset
from callbreak.bots.names import NAMES, WRITTEN, bot_names, level_name, same_person, written
from callbreak.server.protocol import SeatRecord, Started
from callbreak.server.table import TableMeta, TableState
from callbreak.tui import LocalGame


def test_the_list_is_short_distinct_names() -> None:
    assert len(NAMES) == len(set(NAMES)) >= 20
    assert all(n.isalpha() and n[0].isupper() and len(n) <= 7 for n in NAMES)


@pytest.mark.parametrize("seed", range(60))
def test_bots_get_distinct_listed_names_that_are_no_persons(seed: int) -> None:
    people = ["Asha", None, "maya rana", None]
    names = bot_names(people, seed)
    assert names[0] == "Asha" and names[2] == "maya rana"
    bots = [names[1], names[3]]
    assert all(n in NAMES for n in bots) and bots[0] != bots[1]
    # never a person's name, nor a person's first name, whatever the case
    assert not {b.casefold() for b in bots} & {"asha", "maya"}
    assert bot_names(people, seed) == names  # the same table, the same names


def test_three_bots_and_the_seed_decides() -> None:
    drawn = {bot_names(["Bikash", None, None, None], seed)[1:] for seed in range(40)}
    assert len(drawn) > 20  # not the same three every time
    for trio in drawn:
        assert len(set(trio)) == 3 and "Bikash" not in trio


def test_a_person_named_like_every_bot_still_leaves_names() -> None:
    people = [NAMES[0], NAMES[1].upper(), f"{NAMES[2]} K", None]
    for seed in range(30):
        last = bot_names(people, seed)[3]
        assert last in NAMES[3:]


def test_four_seats_are_needed() -> None:
    with pytest.raises(ValueError, match="four seats"):
        bot_names(["Asha", None, None], 1)


def test_the_web_table_and_the_terminal_use_the_same_rule() -> None:
    seed = 12345
    meta = TableMeta(id="t", invite="i", rules=Ruleset.preset("quick"), bots="easy", seed=seed, created=0.0)
    table = TableState(meta)
    table.apply({"t": "seat", "seat": 0, "name": "Sita", "token": "x" * 22})
    events = table.apply({"t": "start"})
    web = tuple(s.name for s in table.seats)
    assert web == bot_names(["Sita", None, None, None], seed)
    assert web[0] == "Sita" and "Sita" not in web[1:]
    # the start event and the seat records tell each bot's level
    assert isinstance(events[0], Started)
    assert events[0].seats[1] == SeatRecord(name=web[1], kind="bot", level="easy")
    assert [table.seat_record(i).level for i in range(4)] == [None, "easy", "easy", "easy"]
    game = LocalGame(seed=seed, bots="random", name="Sita", delay=0)
    assert tuple(game.match.players) == web
    assert game.model().labels[1] == f"bot · {level_name('random')}" == "bot · beginner"


def test_every_name_is_written_in_each_script_and_read_as_one_person() -> None:
    assert list(WRITTEN) == list(NAMES)
    for name in NAMES:
        devanagari, bengali = WRITTEN[name]
        assert written(name, "ne") == written(name, "hi") == devanagari and written(name, "bn") == bengali
        assert same_person(name, devanagari) and same_person(devanagari, bengali)
    forms = [f for n in NAMES for f in (n, *WRITTEN[n])]
    assert len(set(forms)) == len(forms)  # (no two names written alike)
