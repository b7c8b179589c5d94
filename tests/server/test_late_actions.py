"""Calls and cards that reach the server late: after their turn went on without them."""

from __future__ import annotations

from pathlib import Path

from callbreak import Ruleset

from .inprocess import Seat, run_until, start_hub


async def test_a_card_chosen_for_an_earlier_turn_is_not_played_on_a_later_one(tmp_path: Path) -> None:
    """A card that reaches the server after more cards were played than when its player chose it
    (on a slow link the turn's timer played for the seat meanwhile; its card won the trick, and the
    seat leads again) is refused, changing nothing, not played on that later turn; the same card
    with the cards played now is played (a reviewer's read of a Bengali player's try)."""
    hub, clock = await start_hub(tmp_path / "db.sqlite")
    try:
        t, tokens = hub.create_table(Ruleset.preset("quick", rounds=1), "random", "Asha", play_now=True)
        me = Seat(hub, t.id, tokens[0])
        await me.hello()
        await run_until(clock, lambda: me.my_turn() and me.state is not None and me.state["phase"] == "playing", (me,))
        assert me.state is not None
        now = t.state.match.round.played_mask.bit_count() if t.state.match else -1
        card = me.state["legal_cards"][0]
        v = t.state.v
        refused = await me.send({"type": "play", "card": card, "ref": "act-7", "at": now - 1 if now else now + 1})
        assert [(m["type"], m["code"], m["ref"]) for m in refused] == [("error", "not_your_turn", "act-7")], refused
        assert t.state.v == v and card in me.state["hand"]
        played = await me.send({"type": "play", "card": card, "ref": "act-8", "at": now})
        assert any(m["type"] == "event" and m["event"]["kind"] == "play" and m["event"]["card"] == card for m in played), played
    finally:
        await hub.shutdown()
