"""Cast with TensorFlow's conversions, zeros_like / ones_like, add_n."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fn
from _math_helpers import assert_same, math_settings

ALL = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


@math_settings


@given(st.sampled_from(ALL), st.sampled_from(ALL), st.data())
def test_cast_in_range_matches_numpy(src, dst, data):
    # Values every destination represents: small integers (and halves for floats).
    el = st.integers(0, 100) if np.dtype(src).kind in "iub" else st.floats(-100, 100, width=16)
    if np.dtype(src).kind == "b":
        el = st.booleans()
    elif np.dtype(src).kind == "i":
        el = st.integers(-100, 100)
    a = data.draw(hnp.arrays(src, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4), elements=el))
    if np.dtype(dst).kind == "u" and np.dtype(src).kind in "if":
        a = np.abs(a)
    want = a.astype(dst)
    if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
        want = np.trunc(a).astype(dst)
    assert_same(fn.cast(a, dst), want)


def test_cast_tf_semantics():
    nan, inf = float("nan"), float("inf")
    assert fn.cast([1.7, -1.7, 3e10, nan], fn.int32).numpy().tolist() == [1, -1, -2 ** 31, -2 ** 31]
    assert fn.cast([1.7, -1.7, 300.0], fn.uint8).numpy().tolist() == [1, 255, 44]
    assert fn.cast([0.0, 0.5, nan], fn.bool).numpy().tolist() == [False, True, True]
    assert fn.cast([0, 2], fn.bool).numpy().tolist() == [False, True]
    assert fn.cast([True, False], fn.float32).numpy().tolist() == [1.0, 0.0]
    assert fn.cast(fn.constant([2 ** 40 + 5], fn.int64), fn.int32).numpy().tolist() == [5]
    assert fn.cast([1e30, -1e30], fn.int64).numpy().tolist() == [-2 ** 63, -2 ** 63]
    assert fn.cast([nan, 200.0, -200.0, 1e10], fn.int8).numpy().tolist() == [0, -56, 56, 0]
    assert fn.cast(fn.constant([40000.5, -40000.0], fn.float64), fn.int16).numpy().tolist() == [-25536, 25536]
    assert fn.cast([inf, -1e10, 1e10], fn.uint8).numpy().tolist() == [0, 0, 0]
    assert fn.cast([70000.0, 1e-8], fn.float16).numpy().tolist() == [inf, 0.0]
    assert fn.cast(fn.constant([2 ** 40, 65519, 65520], fn.int64), fn.float16).numpy().tolist() == [inf, 65504, inf]
    assert fn.cast(fn.constant([-1, 256]), fn.uint8).numpy().tolist() == [255, 0]
    assert fn.cast(1.5, fn.int32).numpy() == 1
    x = fn.constant([1.0])
    assert fn.cast(x, fn.float32) is x
    with pytest.raises(fn.errors.UnimplementedError, match=r"Cast string to int32 is not supported \[Op:Cast\]"):
        fn.cast(fn.constant("1"), fn.int32)
    with pytest.raises(fn.errors.UnimplementedError, match="Cast int32 to string is not supported"):
        fn.cast(fn.constant(1), fn.string)


def test_zeros_like_ones_like():
    assert_same(fn.zeros_like([1, 2]), np.zeros(2, np.int32))
    assert_same(fn.ones_like(fn.constant([[1.0]])), np.ones((1, 1), np.float32))
    assert_same(fn.ones_like(fn.constant([False])), np.array([True]))
    assert_same(fn.zeros_like(fn.constant([1]), dtype=fn.float32), np.zeros(1, np.float32))
    assert_same(fn.ones_like(fn.constant([1.5]), dtype=fn.int64), np.ones(1, np.int64))
    assert fn.zeros_like(fn.constant(["a"])).numpy().tolist() == [b""]
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of string.*\[Op:OnesLike\]"):
        fn.ones_like(fn.constant(["a"]))


def test_add_n():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_same(fn.add_n([a, a, a]), 3 * a)
    assert_same(fn.add_n([a]), a)
    assert fn.add_n([1, 2]).numpy() == 3
    assert_same(fn.add_n([fn.constant([100], fn.int8)] * 2), np.array([-56], np.int8))
    with pytest.raises(ValueError, match="Inputs must be an iterable of at least one Tensor"):
        fn.add_n([])
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: \[2\] != input 1: \[3\] \[Op:AddN\]"):
        fn.add_n([fn.ones([2]), fn.ones([3])])
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute AddN as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor"):
        fn.add_n([fn.ones([2]), fn.ones([2], fn.int32)])
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of bool.*\[Op:AddN\]"):
        fn.add_n([fn.constant(True), fn.constant(False)])
