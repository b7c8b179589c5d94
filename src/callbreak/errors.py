"""The engine's errors: all are `ValueError` subclasses, so bad input is one `except`."""

from __future__ import annotations

__all__ = ["HistoryError", "IllegalAction"]


class IllegalAction(ValueError):
    """An action that is not legal now: a call out of range or out of turn, a card not
    held or not allowed.  The state it was tried on is unchanged.

    >>> from callbreak import Round, Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1))
    >>> try:
    ...     rnd.play("AS")
    ... except IllegalAction as e:
    ...     print(e)
    no card now: the round is in phase 'calling'
    """


class HistoryError(ValueError):
    """A hand history that cannot be read or replayed; ``line`` is its 1-based line.

    >>> e = HistoryError("seat 2 does not hold AS", line=14)
    >>> str(e), e.line
    ('line 14: seat 2 does not hold AS', 14)
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)
