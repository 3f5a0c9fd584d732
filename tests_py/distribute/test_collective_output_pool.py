"""Collective outputs of 1 MiB and more in fn._mpi's pool of mapped blocks (cpp/mpi/mapped_pool.h):
the sums are right for every dtype and size (also ones not a multiple of the page size), an
output's block is reused once the output dies, an all-reduce of a value that dies in it stays in
place, outputs dropped on another thread while collectives and other leases run are safe, and the
pool keeps a bounded number of idle blocks. Under TensorFlow 2.21 (``--against-tf``) the same
workers check the values; the pool's counters are fn's only. Workers run ``pool_worker.py``."""
import os
import sys

import numpy as np
import pytest

from tfbackend import IS_TF
from test_multi_worker import launch, needs_launcher

pytestmark = pytest.mark.tf_oracle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from pool_worker import CASES, MiB, values  # noqa: E402


def _expected_sum(dtype, count, n):
    return sum(values(dtype, count, i).astype(np.float64) for i in range(n))


@needs_launcher
@pytest.mark.parametrize("n", [2, 3])
def test_collective_outputs_in_the_pool(tmp_path, n):
    _, _, results = launch(n, "pool", tmp_path, cmd=[sys.executable, os.path.join(HERE, "pool_worker.py"), str(tmp_path)])
    assert sorted(results) == list(range(n))
    floats = [(d, c) for d, c in CASES if d.startswith("float")]
    for r in results.values():
        for (dtype, count), got in zip(CASES, r["sums"]):
            want = _expected_sum(dtype, count, n)
            assert got[:5] == [int(want[i]) for i in [0, 1, 500, 999, count - 1]], (dtype, count)
            assert got[5] == float(want.sum())
        for (dtype, count), got in zip(floats, r["means"]):
            np.testing.assert_allclose(got, _expected_sum(dtype, count, n).sum() / n, rtol=1e-6)
        assert all(r["inputs_kept"])
        x4 = _expected_sum("float32", 4 * MiB // 4 + 11, n)
        assert r["chain_sum"] == float(x4.sum()) * n ** 3
        assert r["reuse"]["same_block"] or IS_TF
        g = np.concatenate([values("float32", (3 * MiB) // 8 + 1, i) for i in range(n)])
        assert r["gather_shape"] == [g.size] and r["gather_sum"] == float(g.astype(np.float64).sum())
        assert r["concurrent_sums"] == [float(x4[-1])] * 12
        if IS_TF:
            continue
        assert r["stress_ok"]
        # Every output of 1 MiB and more starts on a 2 MiB boundary; the small one is fn's.
        for (dtype, count), a in zip(CASES, r["addresses"]):
            nbytes = count * np.dtype(dtype).itemsize
            assert (a % (2 * MiB) == 0) == (nbytes >= MiB), (dtype, count, hex(a))
        reuse = r["reuse"]
        assert reuse["held"]["leased"] == reuse["start"]["leased"] + 1
        assert reuse["dropped"]["leased"] == reuse["start"]["leased"]
        assert reuse["dropped"]["idle"] >= 1
        assert reuse["again"]["maps"] == reuse["dropped"]["maps"]
        assert reuse["again"]["reuses"] == reuse["dropped"]["reuses"] + 1
        chain = r["chain"]
        assert chain["held"]["leased"] == chain["before"]["leased"] + 1   # the rest reduced in place
        assert chain["held"]["maps"] + chain["held"]["reuses"] == chain["before"]["maps"] + chain["before"]["reuses"] + 1
        bound = r["bound"]
        assert bound["held"]["leased"] >= 20
        dropped = bound["dropped"]
        assert dropped["idle"] <= dropped["max_idle_blocks"] and dropped["idle_bytes"] <= dropped["max_idle_bytes"]
        assert dropped["unmaps"] > bound["held"]["unmaps"]
        assert r["end"]["leased"] == 0
