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

__all__ = ["seed_of", "seed_of_test"]


def seed_of(key: str) -> int:
    """A seed from ``key`` (a test's node id): the same on every run and platform."""
    return zlib.crc32(key.encode())


def seed_of_test() -> int:
    """The seed of the test now running (pytest's ``PYTEST_CURRENT_TEST``; outside a test, that of
    the empty name)."""
    return seed_of(os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0])
