"""The terminal's tests press keys as fast as a script can: the round summary's guard against a key
meant for the table (`SummaryScreen.GUARD`) is off here, but in the test of the guard itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from callbreak.tui.app import SummaryScreen


@pytest.fixture(autouse=True)
def no_summary_guard() -> Iterator[None]:
    kept = SummaryScreen.GUARD
    SummaryScreen.GUARD = 0.0
    yield
    SummaryScreen.GUARD = kept
