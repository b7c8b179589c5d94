"""Hints for the seat to act, computed off the event loop."""

from __future__ import annotations

import asyncio

from ..bots import Hint
from ..bots.hints import hint
from ..bots.warmup import KERNEL
from .live import LiveTable, dumps
from .table import TableError

__all__ = ["hint_message"]


async def hint_message(t: LiveTable, seat: int, ref: object) -> str:
    """The ``hint`` message for ``seat``, whose turn it is (`TableError` otherwise).

    The hard level answers (from the medium level, and saying so, while its kernel
    warms up); a failure is the caller's to report, never a made-up hint.
    """
    st = t.state
    if st.to_act != seat or st.match is None:
        raise TableError("not_your_turn", "a hint is for your turn")
    v = st.v
    view = st.match.view(seat)
    KERNEL.start()
    result: Hint = await asyncio.to_thread(hint, view, until_ready=KERNEL)
    return dumps({**result.to_dict(), "type": "hint", "v": v, "ref": ref})
