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


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _ir_measures_untouched():
    """Importing tieaware.ir_measures installs its provider in ir_measures' pipeline (test_doctests imports every
    module): after each test ir_measures' own providers compute again, so no other test sees tie-aware values."""
    yield
    provider = sys.modules.get("tieaware.runs.ir_measures_provider")
    if provider is not None:
        provider.uninstall()
