"""Shared pytest setup: hypothesis profiles.

- ``ci`` (the default): derandomized, so every run checks the same cases.
- ``dev``: random, for exploring while coding.
- ``thorough``: derandomized and 20x more examples, for long runs:
  ``HYPOTHESIS_PROFILE=thorough python -m pytest``.
"""

import os

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("ci", derandomize=True, max_examples=150, **_common)
settings.register_profile("dev", max_examples=150, **_common)
settings.register_profile("thorough", derandomize=True, max_examples=3000, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
