"""Calls and cards the server made for a seat (its timer ran out, a bot stood in) are marked in
the analysis and left out of the player's figures: a newcomer's accuracy counted the bot's play."""

from __future__ import annotations

from callbreak.analysis.engine import analyse_deal, assemble
from callbreak.rules import Ruleset
from callbreak.server.table import TableMeta, TableState


def played_table() -> TableState:
    """A one-round table: seat 0's call runs out and a bot plays its first three cards, the rest
    (and every other seat) by hand (the first legal action)."""
    st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1), "random", 11, 0.0))
    for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"}):
        st.apply(e)
    cards_by_bot = 0
    while st.status != "over":
        assert st.match is not None
        if st.status == "between_rounds":  # (a tie at the top: a sudden-death round)
            st.apply({"t": "next"})
            continue
        r = st.match.round
        auto = None
        if r.to_act == 0 and r.phase == "calling" and st.match.round_number == 1:
            auto = "timeout"
        elif r.to_act == 0 and cards_by_bot < 3:
            auto, cards_by_bot = "autoplay", cards_by_bot + 1
        e = (
            {"t": "call", "seat": r.to_act, "call": r.legal_calls()[0]}
            if r.phase == "calling"
            else {"t": "play", "seat": r.to_act, "card": str(r.legal_cards()[0])}
        )
        st.apply({**e, "auto": auto} if auto else e)
    return st


def test_moves_made_for_a_seat_are_marked_and_not_counted_as_the_players() -> None:
    st = played_table()
    auto = st.auto_decisions()
    assert sorted(auto.values()) == ["autoplay", "autoplay", "autoplay", "timeout"]
    m = st.match
    assert m is not None
    decisions = [d for i in range(len(m.deals)) for d in analyse_deal(m, i, [0], 30, 1)]
    plain = assemble(m, [0], 30, 1, decisions)
    marked = assemble(m, [0], 30, 1, decisions, auto)
    assert [(d.deal, d.step) for d in marked.decisions if d.auto] == sorted(auto)
    assert {d.auto for d in marked.decisions if (d.deal, d.step) in auto} == {"timeout", "autoplay"}
    own = [d for d in marked.decisions if d.auto is None]
    mine, everyone = marked.summaries[0], plain.summaries[0]
    assert mine.decisions == everyone.decisions == len(decisions)  # every decision is listed
    graded = [d for d in own if not d.forced]
    assert mine.accuracy == round(sum(d.grade == "good" for d in graded) / len(graded), 4)
    assert sum(mine.grades.values()) == len(own) == len(decisions) - 4
    assert mine.points_lost_calls == round(sum(d.loss_points for d in own if d.kind == "call"), 3)
    assert mine.points_lost_cards == round(sum(d.loss_points for d in own if d.kind == "card"), 3)
    # the timer's call is graded a blunder (the lowest call): it is not among the player's mistakes,
    # which are the player's own blunders
    (timer,) = [d for d in marked.decisions if d.auto == "timeout"]
    assert timer.grade == "blunder" and timer not in marked.mistakes(0)
    assert marked.mistakes(0) == [d for d in own if d.grade in ("mistake", "blunder")] != []
