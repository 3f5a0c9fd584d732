"""Functions with *args: trace once per argument structure, results as TF's; cached calls take
the C++ fast path (issue 13)."""
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle


def test_varargs_trace_per_count_and_results():
    traces = []

    @tf.function
    def f(*args):
        traces.append(len(args))
        return args[0] + args[-1]

    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 5.0])
    assert f(x).numpy().tolist() == [2.0, 4.0]
    assert f(x, y).numpy().tolist() == [4.0, 7.0]
    assert f(y, x).numpy().tolist() == [4.0, 7.0]
    many = [x] * 99 + [y]
    assert f(*many).numpy().tolist() == [4.0, 7.0]
    assert f(*many).numpy().tolist() == [4.0, 7.0]
    assert traces == [1, 2, 100]


def test_positional_params_then_varargs_with_defaults_and_python_values():
    traces = []

    @tf.function
    def g(a, b=2.0, *rest):
        traces.append(1)
        return a * b + sum(rest)

    x = tf.constant(1.5)
    assert float(g(x)) == 3.0
    assert float(g(x, 4.0)) == 6.0
    assert float(g(x, 4.0, 1, 2)) == 9.0
    assert float(g(x, 4.0, 1, 2)) == 9.0
    assert float(g(x, 4.0, 1, 3)) == 10.0   # a new Python value: a new trace
    assert float(g(a=x)) == 3.0
    assert float(g(x, b=1.0)) == 1.5
    assert len(traces) == 5   # g(a=x) binds as g(x)


@pytest.mark.fn_only
def test_varargs_cache_hits_take_the_fast_path():
    @tf.function
    def f(*args):
        return args[0] + args[-1]

    args = [tf.constant(1.0)] * 100
    f(*args)
    before = f._fast_hits
    for _ in range(5):
        f(*args)
    assert f._fast_hits == before + 5


def test_repeated_tensor_calls_still_retrace_on_dtype_shape_or_kind_change():
    # The fast path reuses the last all-tensor key while dtypes and shapes match: any change
    # (a shape, a dtype, a Variable or a Python value in a tensor's place) must key afresh.
    import numpy as np
    traces = []

    @tf.function
    def f(*args):
        traces.append(tuple(tuple(a.shape) if hasattr(a, "shape") else a for a in args))
        return args[0] + tf.cast(args[-1], tf.float32)

    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    v = tf.Variable([5.0, 6.0])
    for _ in range(2):
        assert f(a, b).numpy().tolist() == [4.0, 6.0]
    assert f(a, tf.constant([1.0, 2.0, 3.0])[:2]).numpy().tolist() == [2.0, 4.0]
    assert f(a, tf.constant([[1.0, 2.0]])).numpy().tolist() == [[2.0, 4.0]]
    assert f(a, tf.constant([1, 2])).numpy().tolist() == [2.0, 4.0]
    assert f(a, v).numpy().tolist() == [6.0, 8.0]
    v.assign([1.0, 1.0])
    assert f(a, v).numpy().tolist() == [2.0, 3.0]
    assert f(a, np.array([1.0, 1.0], np.float32)).numpy().tolist() == [2.0, 3.0]
    assert f(a, 2.0).numpy().tolist() == [3.0, 4.0]
    assert f(a, b).numpy().tolist() == [4.0, 6.0]
    assert traces == [((2,), (2,)), ((2,), (1, 2)), ((2,), (2,)), ((2,), (2,)), ((2,), 2.0)]


def test_repeated_tensor_calls_with_reduce_retracing():
    traces = []

    @tf.function(reduce_retracing=True)
    def f(*args):
        traces.append(len(args))
        return tf.reduce_sum(args[0]) + tf.reduce_sum(args[-1])

    for n in (2, 3, 4, 4, 3, 2, 5):
        assert float(f(tf.ones([n]), tf.ones([2]))) == n + 2.0
    assert traces == [2, 2]
