"""Seeds: the one check of a seed given (`check_seed`), and seeds derived from other seeds,
stable across runs, processes and platforms, and one-way.

A derived seed tells nothing of the seeds it came from. That matters where a derived seed leaves
the process that holds the truth (a bot decision's seed in a log line or on a bot queue): the
table's own seed deals every hand, and must not be recoverable from it.

>>> derive_seed("bot", 7, 2) == derive_seed("bot", 7, 2) != derive_seed("bot", 7, 3)
True
"""

from __future__ import annotations

import hashlib

from .checks import check_whole

__all__ = ["check_seed", "derive_seed"]


def check_seed(seed: object) -> int:
    """``seed`` as an int if it is a whole number from 0 (NumPy's integers too); else a `ValueError`
    that says so.

    A negative seed is refused: Python's generator seeds with its absolute value, so ``-1``
    would deal what ``1`` deals (two seeds, one match), and NumPy's refuses it.

    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0, not -1
    >>> check_seed(True)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0, not True
    """
    return check_whole(seed, "seed")


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from ``parts`` (a hash: the parts cannot be found from it).

    >>> derive_seed(1, 2) == derive_seed(1, 2) != derive_seed(2, 1)
    True
    >>> 0 <= derive_seed("deal", 2**70) < 2**63
    True
    """
    h = hashlib.blake2b(repr(parts).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "big") >> 1
