"""What the garbage collector tracks of a table: the objects a full collection visits."""

from __future__ import annotations

import gc
import random
import types
from typing import TYPE_CHECKING, Any

from callbreak.server.protocol import RoundOver

if TYPE_CHECKING:
    from callbreak.server.live import LiveTable

#: code and classes: shared by every table, never a table's own
_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def tracked_from(root: object, leave_out: list[object]) -> int:
    """Objects the collector tracks that ``root`` reaches, not through ``leave_out`` (nor through
    classes, modules and functions).

    >>> x = [[1], (2, 3), ("a", [2])]
    >>> _ = gc.collect(); tracked_from(x, [])   # a collection stops tracking a tuple of atoms only
    4
    """
    seen = {id(o) for o in leave_out}
    stack = [root]
    n = 0
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if not gc.is_tracked(o) or isinstance(o, _SHARED):
            continue
        n += 1
        stack.extend(gc.get_referents(o))
    return n


def play_round(t: LiveTable, rng: random.Random) -> None:
    """Every seat of ``t`` plays random legal actions until a round is over (the next round
    dealt first when the table is between rounds)."""
    if t.state.status == "between_rounds":
        t.submit({"t": "next"})
    while True:
        m = t.state.match
        assert m is not None and m.to_act is not None
        view = m.view(m.to_act)
        entry: dict[str, Any]
        if m.round.phase == "calling":
            entry = {"t": "call", "seat": m.to_act, "call": rng.choice(list(view.legal_calls))}
        else:
            entry = {"t": "play", "seat": m.to_act, "card": str(rng.choice(list(view.legal_cards)))}
        if any(isinstance(e, RoundOver) for e in t.submit(entry)):
            return
