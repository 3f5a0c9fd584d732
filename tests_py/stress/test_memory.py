"""Memory stays flat: over many cached calls, and over 20,000 retraces of a Function whose
cache is bounded (``max_cache_size``; the retrace log is bounded too).

FN_STRESS_CALLS sets the number of cached calls (default 1,000,000)."""
from __future__ import annotations

import gc
import os
import time

import pytest

import fn

pytestmark = pytest.mark.filterwarnings("ignore:.*retracing")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_rss_flat_over_cached_calls():
    n = int(os.environ.get("FN_STRESS_CALLS", "1000000"))
    f = fn.function(lambda x, y: x * y + 1.0)
    x, y = fn.constant([1.0, 2.0]), fn.constant(3.0)
    for _ in range(20000):   # warm: allocator pools, caches
        f(x, y)
    gc.collect()
    before = rss_mb()
    for _ in range(n):
        f(x, y)
    gc.collect()
    grown = rss_mb() - before
    print(f"RSS {before:.1f} MB -> +{grown:.2f} MB over {n} cached calls")
    assert f.experimental_get_tracing_count() == 1
    assert grown < 16, f"RSS grew {grown:.1f} MB over {n} cached calls"


def test_rss_flat_over_20000_retraces_with_a_bounded_cache():
    f = fn.function(lambda x, k: x + k, max_cache_size=16)
    x = fn.constant(1.0)
    for k in range(2000):   # every Python int is a new trace type: a retrace per call
        f(x, k)
    gc.collect()
    before = rss_mb()
    t0 = time.monotonic()
    for k in range(2000, 20000):
        assert float(f(x, k)) == 1.0 + k
    elapsed = time.monotonic() - t0
    gc.collect()
    grown = rss_mb() - before
    print(f"RSS {before:.1f} MB -> +{grown:.2f} MB over 18,000 retraces in {elapsed:.1f} s")
    assert f.experimental_get_tracing_count() == 20000
    assert len(f._retrace_log) <= 100
    assert grown < 32, f"RSS grew {grown:.1f} MB over 18,000 retraces"
    # Per-trace cost must not grow with the number of past traces (it was quadratic).
    assert elapsed < 600, f"18,000 retraces took {elapsed:.0f} s"
