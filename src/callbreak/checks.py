"""The one check of a whole number given to the library (a seed, a count of matches or processes,
a search's budget): an ``int`` or any integer type (NumPy's, from an ``argmax`` or an array),
never a bool; refused with a `ValueError` that names it and says what it takes.

>>> check_whole(4, "matches", 1)
4
>>> check_whole(4.5, "matches", 1)
Traceback (most recent call last):
...
ValueError: matches must be a whole number from 1, not 4.5
"""

from __future__ import annotations

import operator

__all__ = ["check_whole"]


def check_whole(value: object, what: str, lowest: int = 0) -> int:
    """``value`` as an int if it is a whole number from ``lowest``; else a `ValueError` naming
    ``what``.

    >>> check_whole(0, "seed"), check_whole(True, "jobs", 1)
    Traceback (most recent call last):
    ...
    ValueError: jobs must be a whole number from 1, not True
    """
    whole = None
    if not isinstance(value, (bool, str)):
        try:
            whole = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            whole = None
    if whole is None or whole < lowest:
        raise ValueError(f"{what} must be a whole number from {lowest}, not {value!r}")
    return whole
