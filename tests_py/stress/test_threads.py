"""16 threads at once: one signature, many signatures traced concurrently, eager ops and
variable updates. Results are checked, and no update is lost (TF's resource variables lock
around a read-modify-write; so does fn)."""
from __future__ import annotations

import threading
from typing import Callable, List

import numpy as np
import pytest

import fn

pytestmark = pytest.mark.filterwarnings("ignore:.*retracing")

THREADS = 16


def run_threads(target: Callable[[int], None], n: int = THREADS) -> None:
    errors: List[BaseException] = []
    start = threading.Barrier(n)

    def body(i: int) -> None:
        try:
            start.wait()
            target(i)
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)
    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_one_signature_from_16_threads():
    f = fn.function(lambda x: x * 2.0 + 1.0)
    x = fn.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    want = np.arange(12, dtype=np.float32).reshape(3, 4) * 2 + 1

    def work(i: int) -> None:
        for _ in range(300):
            np.testing.assert_array_equal(f(x).numpy(), want)
    run_threads(work)
    assert f.experimental_get_tracing_count() == 1


def test_many_signatures_traced_concurrently():
    f = fn.function(lambda x: fn.reduce_sum(x, axis=0) + fn.cast(fn.shape(x)[0], fn.float32))
    shapes = [(1 + k % 5, 1 + k // 5) for k in range(40)]

    def work(i: int) -> None:
        for rep in range(3):
            for k in range(i, i + len(shapes)):
                s = shapes[k % len(shapes)]
                a = np.full(s, float(k % 7), np.float32)
                np.testing.assert_allclose(f(fn.constant(a)).numpy(), a.sum(axis=0) + s[0])
    run_threads(work)
    # Each signature is traced once however many threads asked for it at the same time.
    assert f.experimental_get_tracing_count() == len(shapes)


def test_eager_ops_from_16_threads():
    def work(i: int) -> None:
        rng = np.random.default_rng(i)
        for _ in range(100):
            a = rng.standard_normal((8, 5)).astype(np.float32)
            b = rng.standard_normal((5, 3)).astype(np.float32)
            got = fn.nn.relu(fn.matmul(a, b) + 1.0)
            np.testing.assert_allclose(got.numpy(), np.maximum(a @ b + 1.0, 0), rtol=1e-5, atol=1e-5)
            assert int(fn.reduce_sum(fn.range(i + 10))) == sum(range(i + 10))
    run_threads(work)


def test_no_lost_variable_updates_in_a_function():
    v = fn.Variable(0)
    inc = fn.function(lambda: v.assign_add(1))
    dec = fn.function(lambda: v.assign_sub(1))
    n = 400

    def work(i: int) -> None:
        for _ in range(n):
            inc()
        for _ in range(n // 4):
            dec()
    run_threads(work)
    assert int(v.numpy()) == THREADS * (n - n // 4)


def test_no_lost_variable_updates_eagerly():
    v = fn.Variable(0.0)

    def work(i: int) -> None:
        for _ in range(300):
            v.assign_add(1.0)
    run_threads(work)
    assert float(v.numpy()) == THREADS * 300
