"""Shared settings for the math-op tests: seeded, bounded hypothesis runs (the whole folder runs
in well under a minute) and fixtures. Assertion helpers are in _math_helpers.py."""
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fn_math", max_examples=60, derandomize=True, deadline=None, database=None, print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
settings.load_profile("fn_math")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
