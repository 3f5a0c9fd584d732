"""Dataset functions (flat_map, interleave, group_by_window, scan, reduce) inside a Function that
capture the Function's tensors run traced, their Python once (TF's ``other_arguments``); and
dataset functions whose Python ``if`` on a tensor returns different datasets."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _ints(ds):
    return [np.asarray(v).tolist() for v in ds]


def test_flat_map_and_interleave_capturing_a_functions_argument_run_their_python_once():
    calls = []

    def make(x):
        def inner(e):
            calls.append(1)
            return tf.data.Dataset.from_tensors(e * x).repeat(2)

        return inner

    @tf.function
    def run(x):
        flat = tf.data.Dataset.range(3).flat_map(make(x))
        inter = tf.data.Dataset.range(3).interleave(make(x), cycle_length=2)
        out = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
        i = 0
        for v in flat.concatenate(inter):
            out = out.write(i, v)
            i += 1
        return out.stack()

    assert run(tf.constant(2, tf.int64)).numpy().tolist() == [0, 0, 2, 2, 4, 4, 0, 2, 0, 2, 4, 4]
    assert run(tf.constant(3, tf.int64)).numpy().tolist() == [0, 0, 3, 3, 6, 6, 0, 3, 0, 3, 6, 6]
    assert len(calls) == 2  # one trace of each function (the Function traced once)


def _pipelines(x, calls):
    def key(e):
        calls.append("key")
        return (e + x) % 2

    def reduce(k, window):
        calls.append("reduce")
        return window.map(lambda v: v * x).batch(3)

    def size(k):
        calls.append("size")
        return x + 1

    def step(s, e):
        calls.append("scan")
        return s + e * x, s

    g = tf.data.Dataset.range(6).group_by_window(key, reduce, window_size_func=size).map(tf.reduce_sum)
    scanned = tf.data.Dataset.range(4).scan(tf.constant(0, tf.int64), step)
    total = scanned.reduce(tf.constant(0, tf.int64), lambda s, e: s + e * x)
    return g.reduce(tf.constant(0, tf.int64), lambda s, e: s * 100 + e), total


def test_group_by_window_scan_and_reduce_capturing_a_functions_argument():
    """Each call of the Function runs with that call's value of ``x``, equal to the same
    pipeline built eagerly; the functions' Python runs once per trace."""
    calls = []
    run = tf.function(lambda x: _pipelines(x, calls))
    for x in (2, 1, 3):
        got = [int(v) for v in run(tf.constant(x, tf.int64))]
        want = [int(v) for v in _pipelines(tf.constant(x, tf.int64), [])]
        assert got == want
    assert sorted(calls) == ["key", "reduce", "scan", "size"]
