"""Save a screenshot (SVG) of a game in progress: ``python -m callbreak.tui.screenshot PATH``.

The game is played by the bots' own choices for seat 0 up to round 2, trick 6, at a
moment when it is your turn with cards on the table, so the picture shows scores,
a trick and a hand with dimmed unplayable cards.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from ..bots import make_bot
from ..rules import Ruleset
from .app import CallbreakApp
from .game import LocalGame, bot_or_fallback

__all__ = ["advance", "save"]


def advance(game: LocalGame, round_number: int = 2, trick: int = 6) -> None:
    """Play seat 0 with a bot until ``round_number``, ``trick``, your turn with 2+ cards down.

    >>> from callbreak import Ruleset
    >>> game = LocalGame(Ruleset.preset("standard"), seed=21, bots="medium", name="You", delay=0, trick_pause=0)
    >>> advance(game, round_number=1, trick=2)
    >>> v = game.match.view(0)
    >>> game.human_to_act, len(v.trick) >= 2, len(v.tricks) + 1 >= 2
    (True, True, True)
    """
    me, _ = bot_or_fallback("medium", game.match.seed)
    for _ in range(2000):
        v = game.match.view(0)
        if (
            v.round_number >= round_number
            and len(v.tricks) + 1 >= trick
            and game.human_to_act
            and len(v.trick) >= 2
            and len(v.legal_cards) < len(v.hand)
        ):
            return
        if game.pending_summary is not None:
            game.acknowledge_round()
        elif game.human_to_act:
            game.submit(me.act(v))
        else:
            game.step_bot()
    raise RuntimeError("no suitable moment found")


async def _save(path: Path, seed: int, size: tuple[int, int]) -> None:
    game = LocalGame(Ruleset.preset("standard"), seed=seed, bots="medium", name="You", delay=0, trick_pause=0)
    make_bot("random")  # the bots package loads its levels
    advance(game)
    app = CallbreakApp(game, hint=False)
    async with app.run_test(size=size) as pilot:
        for _ in range(5):
            await pilot.pause()
        app.save_screenshot(path.name, str(path.parent))


def save(path: str | Path, seed: int = 21, size: tuple[int, int] = (110, 34)) -> Path:
    """Write the SVG screenshot to ``path``.

    >>> import tempfile, pathlib
    >>> path = save(pathlib.Path(tempfile.mkdtemp()) / "tui.svg", seed=21, size=(110, 34))
    >>> path.name, path.read_text(encoding="utf-8").startswith("<svg")
    ('tui.svg', True)
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(_save(p, seed, size))
    return p


if __name__ == "__main__":  # pragma: no cover
    print(save(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/tui.svg"))
