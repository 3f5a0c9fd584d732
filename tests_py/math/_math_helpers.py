"""Helpers shared by the math-op tests."""
import numpy as np
from hypothesis import HealthCheck, settings

# Seeded and bounded, so the whole folder runs in well under a minute and reproducibly. Applied
# per test (not as a global profile, which would change other folders' hypothesis tests).
math_settings = settings(
    max_examples=60, derandomize=True, deadline=None, database=None, print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def assert_same(got, want, rtol=1e-6, atol=0.0):
    """fn result equals the NumPy one: dtype, shape and values (NaNs in the same places)."""
    got_np = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    want = np.asarray(want)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    assert got_np.dtype == want.dtype, (got_np.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got_np, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_np, want)
