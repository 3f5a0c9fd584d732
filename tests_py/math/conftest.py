"""Fixtures for the math-op tests (hypothesis settings and assertion helpers are in
_math_helpers.py)."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
