"""The tables a ``hard`` decision is made from: every candidate played out on every deal.

`search_values` plays each legal card and then the rest of the round out on each deal in the
compiled kernel (`callbreak.bots.kernel.search`: every seat by its style's rules, from what it
could know), each outcome valued as a match result for the seat (`search_state`: the position
and the match's stakes as the kernel takes them); `look_values` chooses the seat's next card by
what it will know then (`callbreak.bots.kernel.look`); `decode_outcomes` reads the call
search's playout ends. `callbreak.bots.hard` draws the deals (`callbreak.bots.determinize`)
and decides from these tables.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..round import SeatView
from .calling import ROUND_SD, win_value
from .determinize import tricks_so_far
from .knowledge import Knowledge
from .styles import STYLES

__all__ = [
    "SearchState",
    "decode_outcomes",
    "look_values",
    "match_stakes",
    "public_cannot",
    "search_state",
    "search_values",
    "styles_array",
]


def styles_array(opp: int | Sequence[int]) -> npt.NDArray[np.int64]:
    """The kernel's array of the seats' styles (`callbreak.bots.styles`: 0 medium's,
    ``1 + o`` ``spar-simple``'s with its hand in order ``o``): one for all, or one per
    seat; anything else is a ``ValueError``.

    >>> styles_array(1).tolist(), styles_array([0, 1, 2, 0]).tolist()
    ([1, 1, 1, 1], [0, 1, 2, 0])
    >>> styles_array([0, 1])
    Traceback (most recent call last):
    ...
    ValueError: opp must be a style (0 medium, 1 to 48 spar-simple in a hand order) or one per seat, not [0, 1]
    """
    styles = np.array([opp] * 4 if isinstance(opp, (int, np.integer)) else list(opp), dtype=np.int64)
    if styles.shape != (4,) or not np.isin(styles, range(STYLES)).all():
        raise ValueError(
            f"opp must be a style (0 medium, 1 to {STYLES - 1} spar-simple in a hand order) or one per seat, not {opp!r}"
        )
    return styles


@dataclasses.dataclass(frozen=True)
class SearchState:
    """A card decision's position as the kernel's searches take it (`search_state`).

    >>> from callbreak import Match
    >>> v = Match(seed=3).view(0)
    >>> v.phase, search_state(v, Knowledge.from_view(v)).trick.tolist()
    ('calling', [0, 0, 0, 0])
    """

    trick: npt.NDArray[np.int64]
    n: int
    leader: int
    won: npt.NDArray[np.int64]
    trick_no: int
    played: int
    rules: npt.NDArray[np.int64]
    calls: npt.NDArray[np.int64]
    totals: npt.NDArray[np.float64]
    sd: float
    pubvoid: npt.NDArray[np.int64]
    cannot: npt.NDArray[np.int64]

    def position(
        self,
    ) -> tuple[
        npt.NDArray[np.int64], int, int, npt.NDArray[np.int64], int, int, npt.NDArray[np.int64], npt.NDArray[np.int64]
    ]:
        """The arguments `kernel.search` and `kernel.look` take after the seat: the trick,
        its cards, the leader, the tricks won, the trick number, the cards played, the
        rules and the calls."""
        return (self.trick, self.n, self.leader, self.won, self.trick_no, self.played, self.rules, self.calls)


def match_stakes(
    view: SeatView, sd_scale: float = 1.0, ahead: Sequence[float] | None = None
) -> tuple[npt.NDArray[np.float64], float]:
    """The match totals and the spread of what is left of the match after this round,
    as the searches value a round's outcome by the chance of finishing first
    (`calling.win_value`; ``sd_scale`` scales the spread, ``ahead`` moves each total by
    what the seat is expected to score above the others in the rounds still to come;
    a lone round: no totals and a wide spread).

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=2), seed=1)
    >>> totals, sd = match_stakes(m.view(m.to_act), 0.5, ahead=[0.0, -1.5, 0.0, 0.0])
    >>> totals.tolist(), round(sd, 2)
    ([0.0, -1.5, 0.0, 0.0], 3.18)
    """
    wv = win_value(view, ahead)
    if wv is None:
        return np.zeros(4), ROUND_SD * 3 * sd_scale
    return np.array(wv[0], dtype=np.float64), math.sqrt(max(wv[1] ** 2 - ROUND_SD**2, 0.0)) * sd_scale


def search_state(
    view: SeatView, k: Knowledge, sd_scale: float = 1.0, ahead: Sequence[float] | None = None
) -> SearchState:
    """The position of a card decision for the kernel: the trick so far, the tricks
    won, the cards played, the calls, the match's stakes (``sd_scale`` scales the
    spread of the rounds still to come, ``ahead`` what each seat is expected to score
    above the others in them: `calling.win_value`), the suits each seat has shown it lacks and
    what each is publicly known not to hold (`public_cannot`).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> st = search_state(v, Knowledge.from_view(v))
    >>> st.n, st.trick_no, st.won.tolist(), st.calls.tolist()
    (2, 1, [0, 1, 0, 0], [1, 4, 2, 3])
    """
    from . import kernel

    trick = np.zeros(4, dtype=np.int64)
    for i, (_, c) in enumerate(view.trick):
        trick[i] = c
    totals, sd = match_stakes(view, sd_scale, ahead)
    pubvoid = np.zeros(4, dtype=np.int64)  # suits each seat has shown it lacks
    for leader, cards in tricks_so_far(view):
        for i, c in enumerate(cards[1:], 1):
            if c // 13 != cards[0] // 13:
                pubvoid[(leader + i) & 3] |= 1 << (cards[0] // 13)
    return SearchState(
        trick,
        len(view.trick),
        view.leader,
        np.array(view.tricks_won, dtype=np.int64),
        len(view.tricks),
        k.played,
        kernel.rules_array(view.rules),
        np.array([c or 0 for c in view.calls], dtype=np.int64),
        totals,
        sd,
        pubvoid,
        np.array(public_cannot(view, k), dtype=np.int64),
    )


def look_values(
    view: SeatView,
    k: Knowledge,
    deals: list[list[int]],
    base: npt.NDArray[np.float64],
    seed: int,
    least: int,
    eps: int = 4,
    sd_scale: float = 1.0,
    opp: Sequence[int] = (0, 0, 0, 0),
    max_work: int = -1,
    ahead: Sequence[float] | None = None,
) -> npt.NDArray[np.float64]:
    """`search_values`' table ``base`` (one rollout a deal, medium's playouts, no exact
    endgames) with the seat's next card chosen by what it will know then (`kernel.look`:
    the deals on which the others, each by its style ``opp``, play the same cards until
    the seat's next turn grouped, in a group of at least ``least`` (2 or more) the next
    card the best on the group's other deals); ``base`` itself where that would take more
    than ``max_work`` playouts (-1: no limit); ``ahead`` as `search_values`.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> import random
    >>> from callbreak.bots.determinize import sample_deals
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = sample_deals(v, k, 40, random.Random(1))
    >>> base = search_values(v, k, deals, seed=1, medium_playouts=True)
    >>> better = look_values(v, k, deals, base, seed=1, least=2)
    >>> better.shape == base.shape, bool((better != base).any())
    (True, True)
    """
    from . import kernel

    if base.shape != (len(deals), len(view.legal_cards)):
        raise ValueError("base must hold one row a deal and one column a legal card")
    if least < 2:
        raise ValueError(f"least must be at least 2, not {least!r}")
    styles = styles_array(opp)
    state = search_state(view, k, sd_scale, ahead)
    out: npt.NDArray[np.float64] = kernel.look(
        np.array(deals, dtype=np.int64),
        view.seat,
        *state.position(),
        np.array([int(c) for c in view.legal_cards], dtype=np.int64),
        state.totals,
        state.sd,
        eps,
        seed,
        state.pubvoid,
        state.cannot,
        styles,
        least,
        base,
        max_work,
    )
    return out


def search_values(
    view: SeatView,
    k: Knowledge,
    deals: list[list[int]],
    seed: int,
    rollouts: int = 1,
    eps: int = 4,
    solve_tricks: int = 0,
    medium_playouts: bool = False,
    sd_scale: float = 1.0,
    opp: int | Sequence[int] = 0,
    ahead: Sequence[float] | None = None,
) -> np.ndarray:
    """Match value of each legal card (columns, in ``view.legal_cards`` order) on
    each deal and rollout (rows); ``medium_playouts``: every seat plays the
    playouts by the medium level's rules instead of the fast policy;
    ``sd_scale`` scales the spread of the rounds still to come; ``opp``: the
    style of the other seats (`callbreak.bots.styles`: 0 medium's, ``1 + o``
    ``spar-simple``'s with its hand in order ``o``), one for all or one per seat
    (anything else is a ``ValueError``); ``ahead``: what each seat is expected to
    score above the others a round in the rounds still to come (`calling.win_value`;
    None: all alike).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> import random
    >>> from callbreak.bots.determinize import sample_deals
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = sample_deals(v, k, 3, random.Random(1))
    >>> values = search_values(v, k, deals, seed=1)
    >>> v.legal_cards, values.shape
    ((Card('7D'), Card('QD')), (3, 2))
    """
    from . import kernel

    styles = styles_array(opp)
    state = search_state(view, k, sd_scale, ahead)
    values: npt.NDArray[np.float64] = kernel.search(
        np.array(deals, dtype=np.int64),
        view.seat,
        *state.position(),
        np.array([int(c) for c in view.legal_cards], dtype=np.int64),
        rollouts,
        state.totals,
        state.sd,
        eps,
        seed,
        state.pubvoid,
        solve_tricks,
        state.cannot,
        int(medium_playouts),
        styles,
    )
    return values



def decode_outcomes(
    outcomes: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The tricks won and the calls of the four seats (a last axis of 4) at the end of
    each playout of the call search (`hard.HardBot.call_table`'s ``outcomes``).

    >>> won, calls = decode_outcomes(np.array([3 | 4 << 4 | 5 << 8 | 1 << 12 | 2 << 16 | 4 << 20 | 4 << 24 | 1 << 28]))
    >>> won.tolist(), calls.tolist()
    ([[3, 4, 5, 1]], [[2, 4, 4, 1]])
    """
    shifts = 4 * np.arange(4, dtype=np.int64)
    won = (outcomes[..., None] >> shifts) & 15
    calls = (outcomes[..., None] >> (shifts + 16)) & 15
    return won, calls


def public_cannot(view: SeatView, k: Knowledge) -> list[int]:
    """What each seat is known not to hold from the play alone (as every seat
    infers it): ``k.cannot``, with this seat's own entry from the play too.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> k.cannot[v.seat] == ((1 << 52) - 1) & ~k.hand   # the seat knows its own hand
    True
    >>> public_cannot(v, k)   # nobody has shown a void yet
    [0, 0, 0, 0]
    """
    tricks = tricks_so_far(view)
    other = Knowledge((view.seat + 1) & 3, view.rules, 0, view.hand_sizes, view.calls, tricks)
    return [other.cannot[s] if s == view.seat else k.cannot[s] for s in range(4)]
