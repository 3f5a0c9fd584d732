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


def _even_or_negated(x):
    if x % 2 == 0:
        return tf.data.Dataset.from_tensors(x).repeat(2)
    return tf.data.Dataset.from_tensors(-x)


def test_a_python_if_on_a_tensor_may_return_different_datasets():
    """AutoGraph stages the ``if`` as a cond whose outputs are the datasets' variants."""
    ds = tf.data.Dataset.range(3).flat_map(
        lambda x: tf.data.Dataset.from_tensors(x) if x % 2 == 0 else tf.data.Dataset.from_tensors(-x)
    )
    assert _ints(ds) == [0, -1, 2]
    assert _ints(tf.data.Dataset.range(3).flat_map(_even_or_negated)) == [0, 0, -1, 2, 2]
    assert _ints(tf.data.Dataset.range(4).interleave(_even_or_negated, cycle_length=2)) == [0, -1, 0, 2, -3, 2]


def test_cond_over_datasets_relaxes_their_element_shapes():
    def f(x):
        if x % 2 == 0:
            return tf.data.Dataset.from_tensors([x])
        return tf.data.Dataset.from_tensors([x, x])

    ds = tf.data.Dataset.range(3).flat_map(f)
    assert _ints(ds) == [[0], [1, 1], [2]]
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)


def test_datasets_chosen_in_a_function_by_cond_and_case():
    @tf.function
    def total(p):
        ds = tf.cond(p > 0, lambda: tf.data.Dataset.range(3), lambda: tf.data.Dataset.range(5).map(lambda v: v * p))
        picked = tf.case(
            [(p > 1, lambda: tf.data.Dataset.range(2)), (p > 0, lambda: tf.data.Dataset.range(4))],
            default=lambda: tf.data.Dataset.range(6),
        )
        return ds.reduce(tf.constant(0, tf.int64), lambda s, e: s + e), picked.reduce(
            tf.constant(0, tf.int64), lambda s, e: s + e
        )

    assert [int(v) for v in total(tf.constant(1, tf.int64))] == [3, 6]
    assert [int(v) for v in total(tf.constant(2, tf.int64))] == [3, 1]
    assert [int(v) for v in total(tf.constant(-1, tf.int64))] == [-10, 15]


@pytest.mark.parametrize(
    "other",
    [lambda x: tf.data.Dataset.from_tensors(tf.cast(x, tf.float32)), lambda x: tf.data.Dataset.from_tensors((x, x))],
    ids=["dtype", "structure"],
)
def test_datasets_of_incompatible_element_specs_in_a_cond_raise_tfs_error(other):
    def f(x):
        if x % 2 == 0:
            return tf.data.Dataset.from_tensors(x)
        return other(x)

    with pytest.raises(TypeError, match=r"'retval_' must have the same nested structure in the main and else") as e:
        tf.data.Dataset.range(3).flat_map(f)
    assert "More specifically: Incompatible CompositeTensor TypeSpecs: type=DatasetSpec" in str(e.value)
    assert "First structure: type=_TensorDataset str=<_TensorDataset element_spec=" in str(e.value)

    @tf.function
    def g(p):
        return tf.cond(p, lambda: tf.data.Dataset.range(2), lambda: other(tf.constant(1, tf.int64)))

    with pytest.raises(TypeError, match="true_fn and false_fn arguments to .*cond must have the same number") as e:
        g(tf.constant(True))
    assert "Incompatible CompositeTensor TypeSpecs" in str(e.value)


def test_a_tensor_loop_may_carry_a_dataset():
    @tf.function
    def total(n):
        ds = tf.data.Dataset.range(2)
        for _ in tf.range(n):
            ds = ds.map(lambda v: v + 1)
        return ds.reduce(tf.constant(0, tf.int64), lambda s, e: s + e)

    assert int(total(tf.constant(3))) == 7
    assert int(total(tf.constant(0))) == 1


def test_nested_dataset_functions_capturing_a_functions_argument():
    calls = []

    def outer(e, x):
        calls.append("outer")
        inner = tf.data.Dataset.range(e + 1).filter(lambda v: v < x)
        return inner.flat_map(lambda v: tf.data.Dataset.from_tensors(v * x + e))

    def over(x):
        return lambda e: outer(e, x)

    @tf.function
    def run(x):
        ds = tf.data.Dataset.range(3).interleave(over(x), cycle_length=2, num_parallel_calls=2)
        out = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
        for v in ds:
            out = out.write(out.size(), v)
        return out.stack()

    for x in (1, 2, 3):
        want = [int(v) for v in tf.data.Dataset.range(3).interleave(over(x), cycle_length=2)]
        assert [int(v) for v in run(tf.constant(x, tf.int64))] == want
    assert calls.count("outer") == 4  # traced once per Function trace and once per eager build


def test_a_scan_whose_state_grows_inside_a_function():
    """TF's scan re-traces with the state's shape relaxed; the initial state and the captured
    argument are the dataset's graph inputs."""

    def pipeline(x):
        return tf.data.Dataset.range(4).scan(
            tf.constant([0], tf.int64),
            lambda s, e: (tf.concat([s, [e * x]], 0), tf.reduce_sum(s) + tf.size(s, tf.int64)),
        )

    run = tf.function(lambda x: pipeline(x).reduce(tf.constant(0, tf.int64), lambda a, b: a * 100 + b))
    for x in (2, 3):
        want = 0
        for v in pipeline(tf.constant(x, tf.int64)):
            want = want * 100 + int(v)
        assert int(run(tf.constant(x, tf.int64))) == want
    assert pipeline(tf.constant(1, tf.int64)).element_spec == tf.TensorSpec([], tf.int64)
