"""Shape-op tests: seeded, bounded hypothesis runs (the folder stays well under a minute)."""
from hypothesis import HealthCheck, settings

settings.register_profile("fn-ops", max_examples=40, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("fn-ops")
