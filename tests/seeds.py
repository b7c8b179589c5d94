"""The seed a test's servers deal from (`callbreak serve --seed`, ``POST /test/seed``): one per
test, from its node id, so each test meets its own deals and bot play, the same on every run,
in any order and on any xdist worker.

>>> seed_of("tests/web/test_table.py::test_whole_match_against_bots") == seed_of("tests/web/test_table.py::test_whole_match_against_bots")
True
>>> 0 <= seed_of("x") < 2**32
True
"""

from __future__ import annotations

import os
import zlib

__all__ = ["process_of_test", "seed_of", "seed_of_test"]

#: how many server processes each test has numbered (`process_of_test`)
_numbered: dict[str, int] = {}


def seed_of(key: str) -> int:
    """A seed from ``key`` (a test's node id): the same on every run and platform."""
    return zlib.crc32(key.encode())


def _current() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]


def seed_of_test() -> int:
    """The seed of the test now running (pytest's ``PYTEST_CURRENT_TEST``; outside a test, that of
    the empty name)."""
    return seed_of(_current())


def process_of_test() -> int:
    """The next ``--process`` number of the test now running: 0 for its first server process, 1 for
    the next, ... so the processes of one test (one seed) deal differently, the same every run.

    >>> first = process_of_test(); process_of_test() == first + 1
    True
    """
    key = _current()
    n = _numbered[key] = _numbered.get(key, -1) + 1
    return n
