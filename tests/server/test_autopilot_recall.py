"""A table's hard seats are told the match's earlier rounds.

A served table resets its bot before each decision (the decision is then the same in any
process, `autopilot.seeded_act`), so the autopilot hands a bot that learns from the whole
match (`HardBot`, inferring each other seat's style) the seat's views of the finished rounds,
taken from the match's record: a function of the log, as the decision must be.
"""

from __future__ import annotations

from callbreak import Ruleset
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.sparring import SimpleBot
from callbreak.bots.warmup import KERNEL
from callbreak.match import Match
from callbreak.server.autopilot import earlier_views, seeded_act
from callbreak.server.clock import ManualClock
from callbreak.server.hub import Hub

from .inprocess import Seat, hub_clock, until

__all__ = ["hub_clock"]  # the fixture

BHOOS = Ruleset.preset("bhoos")


async def test_a_hard_seat_at_a_table_knows_the_cards_of_the_rounds_before(hub_clock: tuple[Hub, ManualClock]) -> None:
    """At round 2, the hard seat's evidence holds every card the other seats played in round 1
    (13 each; its own seat is not counted): what it saw played, handed to it again at each
    decision although the bot is reset before each."""
    hub, clock = hub_clock
    # the hard seats play as hard (not as medium while the kernel loads), and are told then
    KERNEL.start()
    assert KERNEL.wait(600)
    t, tokens = hub.create_table(BHOOS.replace(rounds=2), "hard", "Asha", play_now=True)
    a = Seat(hub, t.id, tokens[0])
    await a.hello()
    st = t.state

    def called_in_round_2() -> bool:
        m = st.match
        return m is not None and m.round_number == 2 and m.round.calls[1] is not None

    for _ in range(20_000):  # (of the table's clock: 2,000 s)
        if called_in_round_2():
            break
        if a.my_turn() and a.state is not None:
            s = a.state
            await a.send({"type": "call", "call": s["legal_calls"][0]} if s["phase"] == "calling" else {"type": "play", "card": s["legal_cards"][0]})
        clock.advance(0.1)
        await until(lambda: not t.autopilot.busy)  # a bot that began to decide (in a thread) has decided
    assert called_in_round_2()
    bot = t.autopilot.bot(1)
    assert bot.recalls
    strong = getattr(bot, "strong", bot)  # the hard bot, behind the medium one while its kernel loads
    assert isinstance(strong, HardBot)
    assert strong.tally.evidence()[-1].tolist() == [13, 0, 13, 13]


def test_told_the_earlier_rounds_a_table_bot_decides_the_same_in_any_process() -> None:
    """Round 3 among three simple players: a hard bot told the rounds before takes them for
    simple players, and another bot object (another process's) decides the same; told nothing,
    it has no evidence at the round's first call."""
    m = Match(BHOOS.replace(rounds=3), seed=3)
    simple = SimpleBot(seed=1)
    while not (m.round_number == 3 and m.to_act == 0):
        m.act(simple.act(m.view(m.to_act)))
    v = m.view(0)
    earlier = earlier_views(m, 0)
    one, two, blind = (HardBot(seed=s, iterations=300, call_deals=20) for s in (1, 2, 3))
    call = seeded_act(one, 77, v, earlier)
    assert seeded_act(two, 77, v, earlier) == call
    k = Knowledge.from_view(v)
    assert one.styles(v, k, 0).tolist() == [0, 1, 1, 1]
    seeded_act(blind, 77, v)
    assert blind.styles(v, k, 0).tolist() == [0, 0, 0, 0]
