"""Reductions and argmax/argmin against NumPy: every axis form (None, int, negative, list,
empty, tensor), keepdims, dtypes, the oneDNN path, and TensorFlow's errors."""
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fn
from _math_helpers import assert_same, math_settings

NUMERIC = [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8, np.float16]


def np_reduce(name, a, axis, keepdims):
    if name == "mean" and a.dtype.kind in "iu":   # TF: integer division of the wide sum
        s = np.sum(a.astype(np.int64), axis=axis, keepdims=keepdims)
        n = a.size // max(np.asarray(s).size, 1) if a.size else 0
        return (np.trunc(s / n) if n else np.zeros_like(s)).astype(a.dtype)
    if a.dtype == np.float16:   # TF accumulates half in float32; NumPy rounds every partial sum
        return np_reduce(name, a.astype(np.float64), axis, keepdims).astype(np.float16)
    f = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
         "any": np.any, "all": np.all}[name]
    out = f(a, axis=axis, keepdims=keepdims)
    return np.asarray(out).astype(a.dtype)


REDUCE = [("sum", fn.reduce_sum), ("mean", fn.reduce_mean), ("max", fn.reduce_max),
          ("min", fn.reduce_min), ("prod", fn.reduce_prod)]


@st.composite
def array_and_axis(draw, dtypes, lo=-4, hi=4, min_side=0):
    dt = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=min_side, max_side=4))
    if np.dtype(dt).kind == "b":
        a = draw(hnp.arrays(dt, shape))
    elif np.dtype(dt).kind == "f":
        a = draw(hnp.arrays(dt, shape, elements=st.floats(lo, hi, width=np.dtype(dt).itemsize * 8)))
    else:
        a = draw(hnp.arrays(dt, shape, elements=st.integers(max(lo, np.iinfo(dt).min), hi)))
    r = len(shape)
    kind = draw(st.sampled_from(["none", "int", "list"])) if r else "none"
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-r, r - 1))
    else:
        axes = draw(st.lists(st.integers(0, r - 1), unique=True, max_size=r))
        axis = [ax - r if draw(st.booleans()) else ax for ax in axes]   # mix negative axes
    return a, axis, draw(st.booleans())


@pytest.mark.parametrize("name,f", REDUCE, ids=[r[0] for r in REDUCE])
def test_reductions_match_numpy(name, f):
    @math_settings
    @given(array_and_axis(NUMERIC, min_side=0 if name in ("sum", "prod", "mean") else 1))
    def check(case):
        a, axis, keep = case
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's "mean of empty slice"
            want = np_reduce(name, a, np_axis, keep)
        tol = {np.float16: 2e-3, np.float32: 1e-5}.get(a.dtype.type, 1e-12)
        assert_same(f(a, axis=axis, keepdims=keep), want, rtol=tol, atol=tol)
    check()


@math_settings


@given(array_and_axis([np.bool_]))
def test_any_all_match_numpy(case):
    a, axis, keep = case
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    assert_same(fn.reduce_any(a, axis, keep), np.any(a, axis=np_axis, keepdims=keep))
    assert_same(fn.reduce_all(a, axis, keep), np.all(a, axis=np_axis, keepdims=keep))


@pytest.mark.parametrize("name,f", REDUCE, ids=[r[0] for r in REDUCE])
def test_large_float32_reductions(name, f, rng):
    a = rng.uniform(0.99, 1.01, size=(32, 24, 40)).astype(np.float32)   # oneDNN path
    for axis in [None, 0, -1, [0, 2], [1]]:
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        want = np_reduce(name, a.astype(np.float64), np_axis, False).astype(np.float32)
        assert_same(f(a, axis), want, rtol=1e-4)
    a[3, 4, 5] = np.nan
    got = f(a, -1).numpy()
    assert np.isnan(got[3, 4]) and not np.isnan(got[3, 3])


def test_axis_forms_and_dtypes():
    x = fn.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert fn.reduce_sum(x).numpy() == 21
    assert fn.reduce_sum(x, axis=[]).numpy().tolist() == x.numpy().tolist()
    assert fn.reduce_sum(x, axis=[-1], keepdims=True).shape == fn.TensorShape([2, 1])
    assert fn.reduce_sum(x, axis=fn.constant([1], fn.int64)).numpy().tolist() == [6, 15]
    assert fn.reduce_sum(x, axis=np.array([0], np.int64)).numpy().tolist() == [5, 7, 9]
    assert fn.reduce_sum(x, axis=(0, 1)).numpy() == 21
    assert fn.reduce_sum(x, axis=[[0]]).numpy().tolist() == [5, 7, 9]
    assert fn.reduce_all(fn.constant([[True, False]]), keepdims=True).shape == fn.TensorShape([1, 1])
    assert fn.math.reduce_sum([1, 2, 3]).numpy() == 6
    assert fn.reduce_mean(fn.constant([1, 2, 2])).numpy() == 1
    assert fn.reduce_mean(fn.constant([255, 255], fn.uint8)).numpy() == 255
    assert fn.reduce_mean(fn.constant([1, 2], fn.float16)).numpy() == 1.5
    assert fn.reduce_mean(fn.zeros([0], fn.int32)).numpy() == 0
    assert np.isnan(fn.reduce_mean(fn.zeros([0])).numpy())
    assert fn.reduce_max(fn.zeros([0])).numpy() == -np.inf
    assert fn.reduce_min(fn.zeros([0])).numpy() == np.inf
    assert fn.reduce_max(fn.zeros([0], fn.int32)).numpy() == -2 ** 31
    assert fn.reduce_prod(fn.zeros([0])).numpy() == 1
    assert np.isnan(fn.reduce_max([1.0, np.nan, 3.0]).numpy())


def test_variance_std_logsumexp_count_nonzero(rng):
    a = rng.standard_normal((3, 4))
    np.testing.assert_allclose(fn.math.reduce_variance(a, 1).numpy(), np.var(a, 1), rtol=1e-12)
    np.testing.assert_allclose(fn.math.reduce_std(a).numpy(), np.std(a), rtol=1e-12)
    np.testing.assert_allclose(fn.reduce_logsumexp(a, 0).numpy(), np.log(np.exp(a).sum(0)), rtol=1e-12)
    np.testing.assert_allclose(fn.reduce_logsumexp([1000.0, 1000.0]).numpy(), 1000 + np.log(2), rtol=1e-6)
    assert fn.reduce_logsumexp(a, 1, keepdims=True).shape == fn.TensorShape([3, 1])
    assert fn.reduce_logsumexp([-np.inf, -np.inf]).numpy() == -np.inf
    assert fn.math.count_nonzero(fn.constant([1, 0, 2])).numpy() == 2
    assert fn.math.count_nonzero(fn.constant([1, 0, 2])).dtype == fn.int64


def test_reduction_errors():
    x = fn.ones([2, 3])
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) \[Op:Sum\]"):
        fn.reduce_sum(x, 2)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Invalid reduction dimension \(-3 for input"):
        fn.reduce_sum(x, -3)
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"Invalid reduction arguments: Axes contains duplicate dimension: 0 \[Op:Sum\]"):
        fn.reduce_sum(x, [0, 0])
    with pytest.raises(TypeError, match="Cannot convert 0.5 to EagerTensor of dtype int32"):
        fn.reduce_sum(x, 0.5)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'Tidx' of float.*\[Op:Sum\]"):
        fn.reduce_sum(x, fn.constant(0.0))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of string.*\[Op:Sum\]"):
        fn.reduce_sum(fn.constant(["a"]))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of bool.*\[Op:Mean\]"):
        fn.reduce_mean(fn.constant([True]))
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute Any as input #0\(zero-based\) was expected to be a bool tensor but is a float tensor \[Op:Any\]"):
        fn.reduce_any(fn.constant([1.0]))


# ---- argmax / argmin ------------------------------------------------------------------------

@math_settings

@given(st.data())
def test_argmax_argmin_match_numpy(data):
    dt = data.draw(st.sampled_from([np.float32, np.float64, np.int32, np.int8, np.uint8, np.bool_]))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    el = None if dt is np.bool_ else (st.integers(0, 5) if np.dtype(dt).kind in "iu" else st.floats(-3, 3, width=32))
    a = data.draw(hnp.arrays(dt, shape, elements=el) if el is not None else hnp.arrays(dt, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    assert_same(fn.argmax(a, axis), np.argmax(a, axis).astype(np.int64))
    assert_same(fn.argmin(a, axis, output_type=fn.int32), np.argmin(a, axis).astype(np.int32))


def test_argmax_semantics_and_errors():
    assert fn.argmax(fn.ones([2, 3])).numpy().tolist() == [0, 0, 0]   # axis defaults to 0
    assert fn.argmax([1.0, np.nan, 3.0]).numpy() == 2                 # NaNs are skipped
    assert fn.argmax([np.nan, 1.0]).numpy() == 1
    assert fn.argmax([np.nan, np.nan]).numpy() == 0
    assert fn.argmin([1.0, np.nan, 0.0]).numpy() == 2
    assert fn.argmin([1.0, 0.0, 0.0]).numpy() == 1                    # first of ties
    assert fn.argmax([True, False]).numpy() == 0
    assert fn.math.argmax([[1, 5], [3, 2]], axis=-1).numpy().tolist() == [1, 0]
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0\] \[Op:ArgMax\]"):
        fn.argmax(fn.zeros([0]))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Expected dimension in the range \[0, 0\), but got 0"):
        fn.argmax(fn.constant(1.0))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Expected dimension in the range \[-2, 2\), but got 2"):
        fn.argmax(fn.ones([2, 3]), 2)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Value for attr 'output_type' of float"):
        fn.argmax(fn.ones([2, 3]), output_type=fn.float32)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of string.*\[Op:ArgMax\]"):
        fn.argmax(fn.constant(["a"]))
