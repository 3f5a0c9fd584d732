"""fn.nn.conv2d against a NumPy reference: SAME/VALID, strides, dilations, explicit padding,
float32 (oneDNN) / float64 / float16; shapes while tracing; errors."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fn
from reference import conv2d as ref_conv2d


@st.composite
def conv_cases(draw):
    n = draw(st.integers(1, 2))
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    c, o = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    dilated = draw(st.booleans())
    stride = (1, 1) if dilated else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if dilated else (1, 1)
    if padding == "VALID" and (h < (kh - 1) * dilation[0] + 1 or w < (kw - 1) * dilation[1] + 1):
        padding = "SAME"
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    return rng.standard_normal((n, h, w, c)), rng.standard_normal((kh, kw, c, o)), stride, dilation, padding


@given(conv_cases(), st.sampled_from([np.float32, np.float64]))
def test_conv2d_matches_numpy(case, dtype):
    x, w, stride, dilation, padding = case
    got = fn.nn.conv2d(x.astype(dtype), w.astype(dtype), strides=[1, *stride, 1], padding=padding,
                       dilations=[1, *dilation, 1])
    want = ref_conv2d(x, w, stride, dilation, padding)
    assert got.dtype == fn.as_dtype(dtype) and got.shape.as_list() == list(want.shape)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,filt,stride,dilation,padding", [
    ((2, 32, 32, 16), (3, 3, 16, 32), (1, 1), (1, 1), "SAME"),     # big enough for oneDNN
    ((1, 33, 31, 8), (5, 3, 8, 24), (2, 3), (1, 1), "SAME"),
    ((1, 30, 30, 8), (3, 3, 8, 16), (1, 1), (2, 3), "VALID"),
    ((4, 16, 16, 32), (1, 1, 32, 64), (2, 2), (1, 1), "VALID"),
])
def test_conv2d_onednn_sizes(shape, filt, stride, dilation, padding):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(filt).astype(np.float32)
    got = fn.nn.conv2d(x, w, strides=stride, padding=padding, dilations=dilation)
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x, w, stride, dilation, padding), rtol=1e-4, atol=1e-4)


def test_conv2d_explicit_padding_and_half_precision():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((1, 5, 6, 3)), rng.standard_normal((3, 2, 3, 4))
    got = fn.nn.conv2d(x, w, 1, [[0, 0], [2, 1], [0, 3], [0, 0]])
    want = ref_conv2d(np.pad(x, [(0, 0), (2, 1), (0, 3), (0, 0)]), w, (1, 1), (1, 1), "VALID")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    h = fn.nn.conv2d(x.astype(np.float16), w.astype(np.float16), 1, "SAME")
    assert h.dtype == fn.float16
    np.testing.assert_allclose(h.numpy(), ref_conv2d(x, w), rtol=2e-2, atol=5e-2)


def test_conv2d_in_functions_shapes_and_names():
    f = fn.function(lambda x, w: fn.nn.conv2d(x, w, 2, "SAME"))
    c = f.get_concrete_function(fn.TensorSpec([None, 9, None, 3]), fn.TensorSpec([3, 3, 3, 8]))
    assert c.structured_outputs.shape.as_list() == [None, 5, None, 8]
    assert "Conv2D" in [op.name for op in c.graph.get_operations()]
    x, w = np.ones((2, 9, 7, 3), np.float32), np.ones((3, 3, 3, 8), np.float32)
    np.testing.assert_allclose(f(fn.constant(x), fn.constant(w)).numpy(), ref_conv2d(x, w, (2, 2)), rtol=1e-5)


def test_conv2d_errors():
    x, w = fn.ones([1, 4, 4, 3]), fn.ones([3, 3, 2, 4])
    with pytest.raises(fn.errors.InvalidArgumentError, match="input depth must be evenly divisible by filter depth: 3 vs 2"):
        fn.nn.conv2d(x, w, 1, "SAME")
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"input must be 4-dimensional\[4,4,3\]"):
        fn.nn.conv2d(fn.ones([4, 4, 3]), fn.ones([3, 3, 3, 4]), 1, "SAME")
    with pytest.raises(fn.errors.InvalidArgumentError, match="does not yet support strides in the batch and depth"):
        fn.nn.conv2d(x, fn.ones([3, 3, 3, 4]), [2, 1, 1, 1], "SAME")
    with pytest.raises(fn.errors.InvalidArgumentError, match="Computed output size would be negative"):
        fn.nn.conv2d(fn.ones([1, 1, 1, 3]), fn.ones([3, 3, 3, 4]), 1, "VALID")
    with pytest.raises(fn.errors.InvalidArgumentError, match="only supports the NHWC tensor format"):
        fn.nn.conv2d(x, fn.ones([3, 3, 3, 4]), 1, "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        fn.function(lambda a: fn.nn.conv2d(a, fn.ones([3, 3, 3, 4]), 1, "SAME")).get_concrete_function(
            fn.TensorSpec([4, 4, 3]))
