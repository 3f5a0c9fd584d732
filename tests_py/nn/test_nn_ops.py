"""Pooling, bias_add, softmax / log_softmax against NumPy; names and shapes while tracing; errors."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fn
from reference import pool as ref_pool


@st.composite
def pool_cases(draw):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 8)), draw(st.integers(1, 8)), draw(st.integers(1, 4)))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID" and (shape[1] < k[0] or shape[2] < k[1]):
        padding = "SAME"
    return np.random.default_rng(draw(st.integers(0, 2 ** 16))).standard_normal(shape), k, s, padding


@given(pool_cases(), st.sampled_from([np.float32, np.float64]))
def test_pools_match_numpy(case, dtype):
    x, k, s, padding = case
    for kind, f in (("max", fn.nn.max_pool2d), ("avg", fn.nn.avg_pool2d)):
        got = f(x.astype(dtype), k, s, padding)
        want = ref_pool(x.astype(dtype).astype(np.float64), k, s, padding, kind)
        assert got.dtype == fn.as_dtype(dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,k,s,padding", [((2, 32, 32, 16), 2, 2, "VALID"), ((1, 31, 29, 24), 3, 2, "SAME"),
                                               ((2, 20, 20, 32), 3, 1, "SAME")])
def test_pools_onednn_sizes(shape, k, s, padding):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(fn.nn.max_pool(x, k, s, padding).numpy(), ref_pool(x, (k, k), (s, s), padding, "max"),
                               rtol=1e-6)
    np.testing.assert_allclose(fn.nn.avg_pool(x, k, s, padding).numpy(), ref_pool(x, (k, k), (s, s), padding, "avg"),
                               rtol=1e-5, atol=1e-6)


def test_pools_in_functions_and_errors():
    f = fn.function(lambda x: (fn.nn.max_pool2d(x, 2, 2, "SAME"), fn.nn.avg_pool2d(x, [3, 3], [1, 1], "VALID")))
    c = f.get_concrete_function(fn.TensorSpec([None, 7, 8, 3]))
    assert [o.shape.as_list() for o in c.structured_outputs] == [[None, 4, 4, 3], [None, 5, 6, 3]]
    names = [op.name for op in c.graph.get_operations()]
    assert "MaxPool" in names and "AvgPool" in names
    with pytest.raises(fn.errors.InvalidArgumentError, match="Pooling is not yet supported on the batch dimension"):
        fn.nn.max_pool2d(fn.ones([1, 4, 4, 1]), [2, 2, 2, 1], 1, "SAME")
    with pytest.raises(fn.errors.InvalidArgumentError, match="input must be 4-dimensional"):
        fn.nn.max_pool2d(fn.ones([4, 4, 1]), 2, 2, "SAME")


@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.sampled_from([np.float32, np.float64, np.int32]))
def test_bias_add(shape, dtype):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    b = (rng.standard_normal(shape[-1]) * 5).astype(dtype)
    np.testing.assert_allclose(fn.nn.bias_add(x, b).numpy(), x + b, rtol=1e-6)
    bc = (rng.standard_normal(shape[1]) * 5).astype(dtype)
    want = x + bc.reshape([1, -1] + [1] * (len(shape) - 2))
    np.testing.assert_allclose(fn.nn.bias_add(x, bc, data_format="NCHW").numpy(), want, rtol=1e-6)


def test_bias_add_errors():
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"Must provide as many biases as the last dimension of the input tensor: \[4\] vs. \[2,3\]"):
        fn.nn.bias_add(fn.ones([2, 3]), fn.ones([4]))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Input tensor must be at least 2D: \[3\]"):
        fn.nn.bias_add(fn.ones([3]), fn.ones([3]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4 for '{{node BiasAdd}}"):
        fn.function(lambda x: fn.nn.bias_add(x, fn.ones([4]))).get_concrete_function(fn.TensorSpec([None, 3]))


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.sampled_from([np.float32, np.float64]), st.data())
def test_softmax_log_softmax(shape, dtype, data):
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 3).astype(dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fn.nn.softmax(x, axis=axis).numpy(), np_softmax(x.astype(np.float64), axis),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(fn.nn.log_softmax(x, axis=axis).numpy(), np.log(np_softmax(x.astype(np.float64), axis)),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(fn.nn.softmax(x).numpy(), np_softmax(x.astype(np.float64), -1), rtol=tol, atol=tol)


def test_softmax_large_and_stable():
    x = np.random.default_rng(5).standard_normal((300, 100)).astype(np.float32) * 50   # oneDNN path
    np.testing.assert_allclose(fn.nn.softmax(x).numpy(), np_softmax(x.astype(np.float64), -1), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(fn.nn.log_softmax(x).numpy(), np.log(np_softmax(x.astype(np.float64), -1)),
                               rtol=1e-4, atol=1e-3)
    assert np.isfinite(fn.nn.softmax(np.array([1e30, 0], np.float32)).numpy()).all()
    with pytest.raises(fn.errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        fn.nn.softmax(fn.constant(1.0))
    c = fn.function(lambda x: fn.nn.softmax(x)).get_concrete_function(fn.TensorSpec([None, 3]))
    assert "Softmax" in [op.name for op in c.graph.get_operations()]
