"""Hints for the seat to act, computed off the event loop."""

from __future__ import annotations

import asyncio
import importlib
import logging
from types import ModuleType
from typing import Any

from ..bots.warmup import KERNEL
from ..cards import Card
from .autopilot import safe_act, table_bot
from .live import LiveTable, dumps
from .table import TableError

__all__ = ["hint_message"]

log = logging.getLogger("callbreak.server")


async def hint_message(t: LiveTable, seat: int, ref: object) -> str:
    """The ``hint`` message for ``seat``, whose turn it is (`TableError` otherwise)."""
    st = t.state
    if st.to_act != seat or st.match is None:
        raise TableError("not_your_turn", "a hint is for your turn")
    v = st.v
    view = st.match.view(seat)
    data: dict[str, Any]
    hints = _optional("callbreak.bots.hints")
    fn = getattr(hints, "hint", None)
    result: Any = None
    if fn is not None:
        try:
            KERNEL.start()
            result = await asyncio.to_thread(fn, view, until_ready=KERNEL)
        except Exception:
            log.exception("hint failed")
            result = None
    if result is not None and hasattr(result, "to_dict"):
        data = dict(result.to_dict())
    elif isinstance(result, dict):
        data = dict(result)
    else:
        choice = await asyncio.to_thread(safe_act, table_bot(st.meta.bots, v), view)
        data = {"call": None, "chance": None, "card": None, "reason": "", "level": st.meta.bots}
        if isinstance(choice, Card):
            data["card"] = str(choice)
        elif isinstance(choice, int):
            data["call"] = choice
    data.update({"type": "hint", "v": v, "ref": ref})
    return dumps(data)


def _optional(name: str) -> ModuleType | None:
    """A module another engineer may not have written yet."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
