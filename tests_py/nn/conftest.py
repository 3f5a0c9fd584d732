"""nn and random op tests: seeded, bounded hypothesis runs; the gradient checker is shared
with the shape tests (tests_py/shape/gradcheck.py)."""
import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "shape"))

settings.register_profile("fn-nn", max_examples=25, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("fn-nn")
