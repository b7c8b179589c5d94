"""What a seat observes, as a flat array, and the one action space: built only from its `SeatView`.

Actions: one ``Discrete(66)`` space for both phases.

======== ==========================================================================
action   meaning
======== ==========================================================================
0..51    play the card of that index: ``suit * 13 + rank``, suits S H D C (0..3),
         ranks 2 3 4 5 6 7 8 9 T J Q K A (0..12), as `callbreak.Card` numbers them
52..65   call ``action - 52`` tricks (0..13); only the ruleset's
         ``min_call..max_call`` are ever legal, so 52 (a call of 0) never is
======== ==========================================================================

The observation: ``SIZE`` (556) float32 numbers.  Seats are *relative*: slot ``k`` of
every per-seat block is the seat ``k`` places after the observer in order of play
(0 the observer, 1 the next to play after it, 2 the one opposite, 3 the one before it).

============ ====== ===== ========================================================
block        offset size  content
============ ====== ===== ========================================================
hand         0      52    1 for each card in the observer's hand
played       52     4x52  1 for each card the seat has played this round
                          (completed tricks and the current trick)
trick        260    4x52  1 for the card the seat has put on the current trick
calls        468    4x15  one-hot: the seat's call 0..13, or index 14: not called yet
tricks_won   528    4     tricks the seat has taken this round (0..13)
totals       532    4     the seat's match total, in points, of the finished rounds
                          (bounds +-1e9 in the space: never reached)
round        536    1     the round number, 1-based (bounds 1..1e9)
phase        537    2     one-hot: calling, playing (both 0 once the match is over)
to_act       539    4     one-hot: the seat to act (all 0 once the match is over)
leader       543    4     one-hot: the seat that leads the current trick
dealer       547    4     one-hot: the dealer
trump        551    4     one-hot: the trump suit, S H D C
sudden_death 555    1     1 in a tie-break round past the ruleset's ``rounds``
============ ====== ===== ========================================================

>>> from callbreak import Match
>>> m = Match(seed=3)
>>> obs = observe(m.view(m.to_act)); obs.shape, obs.dtype, int(obs[HAND:HAND + 52].sum())
((556,), dtype('float32'), 13)
>>> int(obs[OFFSETS["to_act"]]), [int(a) for a in mask(m.view(m.to_act)).nonzero()[0][:3]]
(1, [53, 54, 55])
"""

from __future__ import annotations

from ..extras import need

try:
    import numpy as np
    import numpy.typing as npt
except ModuleNotFoundError:
    need("callbreak.env", "rl", only=("numpy",))
    raise  # (a module there, broken: its own error)

from ..cards import Card
from ..round import CALLING, PLAYING, SeatView

__all__ = [
    "BLOCKS",
    "BOUND",
    "CALL_BASE",
    "HAND",
    "HIGH",
    "LOW",
    "N_ACTIONS",
    "OFFSETS",
    "SIZE",
    "action_of",
    "mask",
    "observe",
    "to_engine",
]

N_CARDS = 52
CALL_BASE = 52
"""Action ``CALL_BASE + n`` calls ``n`` tricks."""
N_CALLS = 14
N_ACTIONS = CALL_BASE + N_CALLS

BLOCKS: tuple[tuple[str, int], ...] = (
    ("hand", 52),
    ("played", 4 * 52),
    ("trick", 4 * 52),
    ("calls", 4 * 15),
    ("tricks_won", 4),
    ("totals", 4),
    ("round", 1),
    ("phase", 2),
    ("to_act", 4),
    ("leader", 4),
    ("dealer", 4),
    ("trump", 4),
    ("sudden_death", 1),
)
"""The observation's blocks in order, with their sizes."""

OFFSETS: dict[str, int] = {}
_o = 0
for _name, _size in BLOCKS:
    OFFSETS[_name] = _o
    _o += _size
SIZE = _o
HAND = OFFSETS["hand"]
_PLAYED = OFFSETS["played"]
_TRICK = OFFSETS["trick"]
_CALLS = OFFSETS["calls"]
_WON = OFFSETS["tricks_won"]
_TOTALS = OFFSETS["totals"]
_ROUND = OFFSETS["round"]
_PHASE = OFFSETS["phase"]
_TO_ACT = OFFSETS["to_act"]
_LEADER = OFFSETS["leader"]
_DEALER = OFFSETS["dealer"]
_TRUMP = OFFSETS["trump"]
_SUDDEN = OFFSETS["sudden_death"]

BOUND = 1e9
"""The bound of the totals and the round number: far beyond any match (a round scores at most
13 points plus a ruleset's bonus, at most 1000), finite, as Gymnasium's checker likes."""
LOW = np.zeros(SIZE, dtype=np.float32)
HIGH = np.ones(SIZE, dtype=np.float32)
"""The bounds of every entry: 0..1 but for tricks won (0..13), totals (+-`BOUND`) and the round (1..`BOUND`)."""
HIGH[_WON : _WON + 4] = 13
LOW[_TOTALS : _TOTALS + 4] = -BOUND
HIGH[_TOTALS : _TOTALS + 4] = BOUND
LOW[_ROUND] = 1
HIGH[_ROUND] = BOUND


def observe(view: SeatView) -> npt.NDArray[np.float32]:
    """The observation of ``view.seat``, made of nothing but ``view``.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> o = observe(m.view(0))
    >>> o.shape == (SIZE,), int(o[HAND:HAND + 52].sum()), bool((observe(m.view(0)) == o).all())
    (True, 13, True)
    """
    me = view.seat
    if not 0 <= me <= 3:
        raise ValueError(f"an observation is of a seat 0..3, not {me!r}")
    obs = np.zeros(SIZE, dtype=np.float32)
    for c in view.hand:
        obs[HAND + c] = 1
    for t in view.tricks:
        for i, c in enumerate(t.cards):
            obs[_PLAYED + 52 * ((t.leader + i - me) & 3) + c] = 1
    for seat, c in view.trick:
        rel = (seat - me) & 3
        obs[_PLAYED + 52 * rel + c] = 1
        obs[_TRICK + 52 * rel + c] = 1
    for seat in range(4):
        rel = (seat - me) & 3
        call = view.calls[seat]
        obs[_CALLS + 15 * rel + (14 if call is None else call)] = 1
        obs[_WON + rel] = view.tricks_won[seat]
        if view.totals is not None:
            obs[_TOTALS + rel] = float(view.totals[seat])
    obs[_ROUND] = view.round_number
    if view.phase == CALLING and view.to_act is not None:
        obs[_PHASE] = 1
    elif view.phase == PLAYING and view.to_act is not None:
        obs[_PHASE + 1] = 1
    if view.to_act is not None:
        obs[_TO_ACT + ((view.to_act - me) & 3)] = 1
    obs[_LEADER + ((view.leader - me) & 3)] = 1
    obs[_DEALER + ((view.dealer - me) & 3)] = 1
    obs[_TRUMP + view.rules.trump_index] = 1
    obs[_SUDDEN] = float(view.sudden_death)
    return obs


def mask(view: SeatView) -> npt.NDArray[np.int8]:
    """1 for each legal action of ``view.seat`` (all 0 when it is not its turn).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> seat = m.to_act
    >>> [to_engine(int(a))[1] for a in mask(m.view(seat)).nonzero()[0]][:4], int(mask(m.view((seat + 1) % 4)).sum())
    ([1, 2, 3, 4], 0)
    """
    out = np.zeros(N_ACTIONS, dtype=np.int8)
    if view.to_act == view.seat:
        for n in view.legal_calls:
            out[CALL_BASE + n] = 1
        for c in view.legal_cards:
            out[c] = 1
    return out


def action_of(choice: int | Card, phase: str) -> int:
    """The action number of an engine choice (a call in ``phase`` calling, else a card).

    >>> action_of(3, "calling"), action_of(Card.parse("AS"), "playing")
    (55, 12)
    """
    if phase == CALLING:
        if isinstance(choice, Card) or not 0 <= choice < N_CALLS:
            raise ValueError(f"a call is 0..13, not {choice!r}")
        return CALL_BASE + int(choice)
    if not 0 <= choice < N_CARDS:
        raise ValueError(f"a card is 0..51, not {choice!r}")
    return int(choice)


def to_engine(action: object) -> tuple[str, int | Card]:
    """``("call", n)`` or ``("play", Card)`` for an action number; ValueError for anything but
    an int (Python's or numpy's, or a 0-d array of one, as a policy's sample may be) 0..65.

    >>> to_engine(12), to_engine(np.int64(55)), to_engine(np.array(53))
    (('play', Card('AS')), ('call', 3), ('call', 1))
    >>> to_engine(53.7)
    Traceback (most recent call last):
    ...
    ValueError: an action is an int 0..65, not 53.7
    """
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]  # (the environments take what their action spaces' samples are)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < N_ACTIONS:
        raise ValueError(f"an action is an int 0..{N_ACTIONS - 1}, not {action!r}")
    a = int(action)
    return ("play", Card(a)) if a < CALL_BASE else ("call", a - CALL_BASE)
