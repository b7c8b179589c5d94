"""A finished match's hand history, in the formats the server offers for download.

``text`` and ``json`` are `callbreak.notation`'s formats (the one copy of each);
``log`` is the server's own action log, from which ``Match(rules, seed, dealer)``
replays the match exactly.
"""

from __future__ import annotations

from .. import notation
from .live import dumps
from .table import FINISHED, TableError, TableState

__all__ = ["FORMATS", "history"]

FORMATS = ("text", "json", "log")


def history(st: TableState, fmt: str) -> tuple[str, str]:
    """(media type, text) of a finished match's hand history; `TableError` before its end
    or for an unknown format.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.table import TableMeta, TableState
    >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1), "random", 7, 0.0))
    >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"}):
    ...     _ = st.apply(e)
    >>> try:
    ...     history(st, "text")
    ... except TableError as e:
    ...     print(e.code)
    not_over
    >>> while st.status != "over":   # everyone plays their first legal move, each deal's first call by the timer
    ...     r = st.match.round
    ...     _ = st.apply({"t": "next"} if st.status == "between_rounds"
    ...                  else {"t": "call", "seat": r.to_act, "call": r.legal_calls()[0]} | (
    ...                      {"auto": "timeout"} if r.calls.count(None) == 4 else {}) if r.phase == "calling"
    ...                  else {"t": "play", "seat": r.to_act, "card": str(r.legal_cards()[0])})
    >>> history(st, "text")[1].splitlines()[0]   # (an analysis of the file leaves those calls out of the seat's figures)
    '[Auto "0:0 timeout, 1:0 timeout"]'
    >>> import json
    >>> json.loads(history(st, "json")[1])["tags"], json.loads(history(st, "log")[1])["auto"]
    ({'Auto': '0:0 timeout, 1:0 timeout'}, '0:0 timeout, 1:0 timeout')
    >>> import json
    >>> media, text = history(st, "log")
    >>> media, json.loads(text)["seed"], len(json.loads(text)["actions"])
    ('application/json', 7, 112)
    """
    if fmt not in FORMATS:
        raise TableError("bad_format", "format is text, json or log")
    if st.status != FINISHED or st.match is None:
        raise TableError("not_over", "the hand history is ready once the match is over")
    m = st.match
    if fmt != "log" and st.auto_decisions():  # (the calls and cards made for a seat, on a copy: `notation.AUTO_TAG`)
        m = notation.from_dict(notation.to_dict(m))
        notation.set_auto_decisions(m, st.auto_decisions())
    if fmt == "text":
        return "text/plain; charset=utf-8", notation.dumps(m)
    if fmt == "json":
        return "application/json", notation.to_json(m)
    return "application/json", dumps(
        {
            "table": st.id,
            "rules": st.meta.rules.to_dict(),
            "seed": m.seed,
            "dealer": m.first_dealer,
            "players": m.players,
            "actions": st.actions(),
            # the calls and cards made for a seat (`notation.AUTO_TAG`'s words): not the player's
            **({"auto": tag} if (tag := notation.auto_tag(st.auto_decisions())) else {}),
            "totals": [str(p) for p in m.totals],
            "places": m.places,
            # a practice table starts at a position (its actions before it are in here)
            **({"practice": st.meta.practice} if st.meta.practice is not None else {}),
        }
    )
