"""Fixtures of the scale-out tests: real PostgreSQL and Redis (see `services`), one per session,
a fresh database and a Redis namespace of its own for each test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from ..server.conftest import make_server  # noqa: F401 (the embedded server's fixture, for these tests too)
from .services import Postgres, Redis, fresh_database, namespace


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's ``postgres`` database (``CALLBREAK_TEST_PG``, or our own)."""
    url = os.environ.get("CALLBREAK_TEST_PG")
    if url:
        yield url
        return
    pg = Postgres()
    try:
        yield pg.url
    finally:
        pg.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """The URL of a Redis server (``CALLBREAK_TEST_REDIS``, or our own)."""
    url = os.environ.get("CALLBREAK_TEST_REDIS")
    if url:
        yield url
        return
    r = Redis()
    try:
        yield r.url
    finally:
        r.stop()


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A new, empty database for this test."""
    return fresh_database(pg_server)


@pytest.fixture
def ns() -> str:
    """A Redis namespace for this test."""
    return namespace()
