"""The terminal's reason for a card that may not be played (`tui.game.refusal`, said in the
player's language) is a second copy of the engine's rule: held here to the engine's own
reason (`Round.play`'s refusal), card by card, under every variant of the play rules."""

from __future__ import annotations

import itertools
import random
import re

from callbreak import Round, Ruleset
from callbreak.errors import IllegalAction
from callbreak.i18n import catalogue
from callbreak.tui.game import refusal

EN = catalogue("en")

#: the engine's reason (after "seat N may not play XX: ") -> the catalogue's key for the same reason
REASONS = {
    r"may not be led": "tui.o_why_lead",
    r"^you must follow": "tui.o_why_follow",
    r"^you must head": "tui.o_why_head",
    r"^you must overtrump": "tui.o_why_overtrump",
    r"must play a \w+$": "tui.o_why_trump",
}


def pattern(key: str) -> re.Pattern[str]:
    """The catalogue's English text of ``key`` as a pattern, each ``{field}`` any text."""
    return re.compile("^" + ".+".join(re.escape(part) for part in re.split(r"\{\w+\}", EN[key])) + "$")


def test_the_terminal_gives_the_engines_reason_for_every_card_it_refuses() -> None:
    rng = random.Random(7)
    checked = set()
    variants = itertools.product(
        (True, False), (True, False), ("any", "not_first_trick", "after_broken"), (True, False), ("S", "H")
    )
    for must_head, head_after_cut, trump_lead, must_undertrump, trump in variants:
        rules = Ruleset(
            must_head=must_head,
            head_after_cut=head_after_cut,
            trump_lead=trump_lead,
            must_undertrump=must_undertrump,
            trump=trump,
        )
        for _ in range(3):
            rnd = Round(rules, Round.deal_hands(seed=rng.randrange(10**6)), dealer=rng.randrange(4))
            while rnd.phase == "calling":
                rnd.call(rng.choice(rnd.legal_calls()))
            while rnd.phase == "playing":
                view = rnd.view(rnd.to_act)
                for card in view.hand:
                    if card in view.legal_cards:
                        assert refusal(view, card) is None
                        continue
                    try:
                        rnd.copy().play(card)
                    except IllegalAction as e:
                        engine = str(e).split(": ", 1)[1]
                    else:
                        raise AssertionError(f"the engine played {card}, which the view says is not legal")
                    key = next(k for reason, k in REASONS.items() if re.search(reason, engine))
                    said = refusal(view, card)
                    assert said is not None
                    why = said.split(" is not legal now: ", 1)[1]
                    assert pattern(key).match(why), (engine, said)
                    checked.add(key)
                rnd.play(rng.choice(view.legal_cards))
    assert checked == set(REASONS.values())
