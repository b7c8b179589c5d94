"""What the server measures about itself: the hooks, and the do-nothing default.

`Meter` is called where things happen (an action handled, an entry committed, a bot's
decision, a lease taken over); `callbreak.server.metrics.PromMeter` (the ``scale`` extra)
turns the calls into Prometheus metrics on ``/metrics``.

>>> m = Meter(); m.action(0.001); m.append(0.0002); m.bot(0.03); m.move(); m.forwarded("ws")
>>> m.bot_queue("answered"); m.bot_queue_depth(3)
"""

from __future__ import annotations

__all__ = ["Meter"]


class Meter:
    """Measurements of one server process (this base ignores them).

    >>> class SlowActions(Meter):   # a meter overrides the hooks it wants
    ...     def __init__(self) -> None:
    ...         self.slow = 0
    ...     def action(self, seconds: float) -> None:
    ...         self.slow += seconds > 0.05
    >>> m = SlowActions()
    >>> for s in (0.004, 0.2, 0.01):
    ...     m.action(s)
    >>> m.append(0.0003); m.move(); m.forwarded("ws"); m.slow   # the rest: ignored, as by the base
    1
    """

    def action(self, seconds: float) -> None:
        """A player's action was handled: validated, committed and published, in ``seconds``."""

    def append(self, seconds: float) -> None:
        """An entry was committed to the store in ``seconds``."""

    def bot(self, seconds: float) -> None:
        """A bot decided in ``seconds`` (wall time, queueing included)."""

    def move(self) -> None:
        """This process took over a table whose owner had died."""

    def forwarded(self, kind: str) -> None:
        """A request (``http``) or a socket (``ws``) was carried to its table's owner elsewhere."""

    def bot_queue(self, outcome: str) -> None:
        """A decision sent to the bot workers on Redis ended: ``answered`` (by a worker; also
        ``reclaimed`` when a worker took it over from another), ``expired`` (no answer by the
        deadline: decided by the table's process), ``failed`` (the queue was out of reach), or an
        answer was ``ignored`` (a second one, or one after the deadline)."""

    def bot_queue_depth(self, requests: int) -> None:
        """The bot queue holds ``requests`` not answered yet (all owners' together)."""
