"""Settings for every test.

Hypothesis draws its examples from a fixed seed (``derandomize``): the property tests
(`tests/core/test_properties.py`, `tests/arena/test_share_interval.py`) try the same
examples on every run and every machine, as everything random in the project does.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("callbreak", derandomize=True, database=None)
settings.load_profile("callbreak")
