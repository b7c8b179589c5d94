"""A table keeps few objects for the garbage collector, and a round played adds only its own.

A full collection visits every tracked object of the process while every table waits, so what
a table keeps is what its players wait for (`benchmarks/heap.py` measures the collection).  The
events a table sent are not kept (they are stored, and the newest are kept as JSON text for
catch-ups), and a round keeps its cards as plain ints (a `Card` is tracked: a tuple holding one
stays tracked)."""

from __future__ import annotations

import gc
import itertools
import random

from callbreak import round as round_module
from callbreak.cards import Card
from callbreak.round import Round
from callbreak.rules import Ruleset
from callbreak.server.config import ServerConfig
from callbreak.server.hub import Hub

from .heap import play_round, tracked_from


def test_a_round_adds_only_the_rounds_own_objects() -> None:
    """Rounds 3 to 8 of an endless match (the catch-up events are full by then): each adds the
    finished `Round` and its few lists, not its 57 actions' events and trick lists."""
    hub = Hub(ServerConfig(db=":memory:", seed=5))
    try:
        t, _ = hub.create_table(Ruleset(rounds=None), name="Asha", play_now=True)
        rng = random.Random(5)
        kept = []
        for _ in range(8):
            play_round(t, rng)
            gc.collect()
            gc.collect()  # a trick's tuple holds a tuple: the collector lets the inner go first, then the outer
            kept.append(tracked_from(t, [hub]))
        added = [b - a for a, b in itertools.pairwise(kept[2:])]
        assert all(0 < n <= 10 for n in added), added
        assert kept[-1] < 300, kept  # it was 1,505 when each round's events were kept
    finally:
        hub.store.close()
        hub.hints.close()


def test_a_rounds_log_and_the_card_cache_hold_no_card_objects() -> None:
    """Cards played as `Card` objects are kept as ints: once collected, the round's log and
    tricks are tuples the collector no longer tracks; so is the process-wide cache behind
    `Round.legal_cards` (which still gives `Card` objects)."""
    rnd = Round(Ruleset(), Round.deal_hands(seed=4), dealer=3)
    for _ in range(4):
        rnd.call(2)
    while rnd.phase == "playing":
        legal = rnd.legal_cards()
        assert all(type(c) is Card for c in legal)
        rnd.play(legal[0])
    gc.collect()
    gc.collect()  # a trick's tuple holds a tuple: the collector lets the inner go first, then the outer
    assert tracked_from(rnd, []) <= 10, tracked_from(rnd, [])
    assert tracked_from(round_module._CHUNKS, []) == 0
