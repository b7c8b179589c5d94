"""A finished match's hand history, in the formats the server offers for download."""

from __future__ import annotations

import contextlib
import importlib
from types import ModuleType
from typing import Any

import orjson

from .live import dumps
from .table import FINISHED, TableError, TableState

__all__ = ["history"]


def history(st: TableState, fmt: str) -> tuple[str, str]:
    """(media type, text) of a finished match's hand history."""
    if st.status != FINISHED or st.match is None:
        raise TableError("not_over", "the hand history is ready once the match is over")
    m = st.match
    log_doc = {
        "table": st.id,
        "rules": st.meta.rules.to_dict(),
        "seed": m.seed,
        "dealer": m.first_dealer,
        "players": m.players,
        "actions": st.actions(),
        "totals": [str(p) for p in m.totals],
        "places": m.places,
    }
    if fmt == "log":
        return "application/json", dumps(log_doc)
    notation = _optional("callbreak.notation")
    if fmt == "text":
        fn = getattr(notation, "dumps", None)
        if fn is not None:
            with contextlib.suppress(Exception):
                return "text/plain; charset=utf-8", str(fn(m))
        return "text/plain; charset=utf-8", _text_history(log_doc)
    if fmt == "json":
        fn = getattr(notation, "to_json", None)
        if fn is not None:
            with contextlib.suppress(Exception):
                out = fn(m)
                return "application/json", out if isinstance(out, str) else dumps(out)
        return "application/json", dumps(log_doc)
    raise TableError("bad_format", "format is text, json or log")


def _optional(name: str) -> ModuleType | None:
    """A module another engineer may not have written yet."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _text_history(doc: dict[str, Any]) -> str:
    lines = [
        f"# Callbreak match at table {doc['table']}",
        f"# rules {orjson.dumps(doc['rules']).decode()}",
        f"# seed {doc['seed']} dealer {doc['dealer']}",
        f"# players {' | '.join(doc['players'])}",
    ]
    for a in doc["actions"]:
        lines.append(f"{a['seat']} {'call ' + str(a['call']) if 'call' in a else 'play ' + a['card']}")
    lines.append(f"# totals {' '.join(doc['totals'])}")
    lines.append(f"# places {' '.join(str(p) for p in doc['places'])}")
    return "\n".join(lines) + "\n"
