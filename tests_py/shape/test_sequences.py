"""range, linspace: values and dtype inference like tf.range / tf.linspace."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fn
from test_shape_ops import same


@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(lambda d: d != 0))
def test_range_ints(start, limit, delta):
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        with pytest.raises(fn.errors.InvalidArgumentError, match="Requires start"):
            fn.range(start, limit, delta)
        return
    same(fn.range(start, limit, delta), np.arange(start, limit, delta, dtype=np.int32))
    same(fn.range(start, limit, delta, dtype=fn.int64), np.arange(start, limit, delta, dtype=np.int64))


@given(st.floats(-10, 10), st.floats(0.1, 10), st.floats(0.05, 3))
def test_range_floats(start, span, delta):
    got = fn.range(start, start + span, delta)
    assert got.dtype == fn.float32
    n = int(np.ceil(np.float32(np.float32(start + span) - np.float32(start)) / np.float32(delta)))
    assert abs(got.shape[0] - n) <= 1
    want = np.float32(start) + np.arange(got.shape[0], dtype=np.float32) * np.float32(delta)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_range_dtype_inference_like_tensorflow():
    assert fn.range(5).dtype == fn.int32 and fn.range(5).numpy().tolist() == [0, 1, 2, 3, 4]
    assert fn.range(0, 5.0).dtype == fn.float32
    assert fn.range(5, dtype=fn.float64).dtype == fn.float64
    assert fn.range(fn.constant(5, fn.int64)).dtype == fn.int64
    if fn._core.has_op("Cast"):   # mixed dtypes cast to the widest
        assert fn.range(fn.constant(2), fn.constant(8, fn.int64)).dtype == fn.int64
    assert fn.range(10, 0, -3).numpy().tolist() == [10, 7, 4, 1]
    # tf.range(0., 1., 0.1): start + i * delta in float32, as TensorFlow computes it
    assert fn.range(0.0, 1.0, 0.1).numpy()[-1] == np.float32(0.90000004)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Requires delta != 0: 0 \[Op:Range\]"):
        fn.range(0, 5, 0)
    with pytest.raises(fn.errors.InvalidArgumentError, match="Requires start <= limit when delta > 0: 5/0"):
        fn.range(5, 0, 1)


def test_range_in_functions():
    @fn.function
    def f(n):
        return fn.range(n), fn.range(3)

    c = f.get_concrete_function(fn.TensorSpec([], fn.int32))
    assert [o.shape.as_list() for o in c.structured_outputs] == [[None], [3]]
    assert [op.name for op in c.graph.get_operations() if op.type == "Range"] == ["range", "range_1"]
    assert f(fn.constant(4))[0].numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="Requires delta != 0 for"):
        fn.function(lambda: fn.range(0, 5, 0)).get_concrete_function()


@given(st.floats(-10, 10), st.floats(-10, 10), st.integers(1, 20))
def test_linspace(start, stop, num):
    got = fn.linspace(start, stop, num)
    assert got.dtype == fn.float32
    np.testing.assert_allclose(got.numpy(), np.linspace(np.float32(start), np.float32(stop), num), rtol=1e-5, atol=1e-5)
    assert got.numpy()[0] == np.float32(start)
    if num > 1:
        assert got.numpy()[-1] == np.float32(stop)
    got64 = fn.linspace(fn.constant(start, fn.float64), stop, fn.constant(num, fn.int64))
    np.testing.assert_allclose(got64.numpy(), np.linspace(start, stop, num), rtol=1e-12, atol=1e-12)
