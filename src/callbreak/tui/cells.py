"""How many terminal cells a Nepali, Hindi or Bengali text takes, as terminals draw it.

Rich, and Textual which measures with it, counts a vowel sign that takes space of its own (Unicode
category Mc: the ा of का, the ি of কি, the ো of কো) as zero cells wide.  Terminals give it one: glibc's
``wcwidth``, which tmux, VTE and xterm follow, says 1.  Every line in those scripts was then measured
a few cells short: borders were pushed out of line, columns cut, the keys' line clipped.
`spacing_marks_take_a_cell` gives these marks one cell in Rich's table (the scripts of India and
Nepal, U+0900 to U+0DFF; nothing else changes).

>>> from rich.cells import cell_len
>>> spacing_marks_take_a_cell()
>>> cell_len("का"), cell_len("कि"), cell_len("কো"), cell_len("क्ष"), cell_len("Asha")
(2, 2, 2, 2, 4)
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from typing import Any

__all__ = ["INDIC", "spacing_marks_take_a_cell"]

#: the blocks of the scripts of India and Nepal (Devanagari … Sinhala)
INDIC = (0x0900, 0x0DFF)


def _one_cell(cp: int) -> bool:
    return INDIC[0] <= cp <= INDIC[1] and unicodedata.category(chr(cp)) == "Mc"


def _widths(ranges: Any) -> list[tuple[int, int, int]]:
    """Rich's ranges of widths other than one cell, less the spacing marks of `INDIC` (one cell:
    the table's default).

    >>> [(hex(a), hex(b), w) for a, b, w in _widths([(0x0900, 0x0902, 0), (0x093A, 0x0940, 0), (0x1100, 0x115F, 2)])]
    [('0x900', '0x902', 0), ('0x93a', '0x93a', 0), ('0x93c', '0x93d', 0), ('0x1100', '0x115f', 2)]
    """
    out: list[tuple[int, int, int]] = []
    for start, end, width in ranges:
        if width != 0 or end < INDIC[0] or start > INDIC[1]:
            out.append((start, end, width))
            continue
        run: int | None = None
        for cp in range(start, end + 1):
            if _one_cell(cp):
                if run is not None:
                    out.append((run, cp - 1, width))
                    run = None
            elif run is None:
                run = cp
        if run is not None:
            out.append((run, end, width))
    return out


_patched: list[bool] = []


def spacing_marks_take_a_cell() -> None:
    """Give the spacing vowel signs of `INDIC` one cell in Rich's measure, as terminals do (once
    for the process; the terminal client calls it as it starts).

    >>> from rich.cells import cell_len
    >>> spacing_marks_take_a_cell(); spacing_marks_take_a_cell()   # (a second call changes nothing)
    >>> cell_len("राम"), cell_len("রাম")
    (3, 3)
    """
    import rich.cells as cells

    if _patched:
        return
    original: Callable[[str], Any] = getattr(cells, "load_cell_table")  # noqa: B009  # (rich.cells' own import: not re-exported)

    @functools.cache
    def load(unicode_version: str = "auto") -> Any:
        table = original(unicode_version)
        return table._replace(widths=_widths(table.widths))

    setattr(cells, "load_cell_table", load)  # noqa: B010  # (the name rich.cells' functions look up)
    cells.get_character_cell_size.cache_clear()
    cells.cached_cell_len.cache_clear()
    _patched.append(True)
