"""3-D convolution / transposed convolution / pooling (tf.nn.conv3d, convolution, conv3d_transpose,
max_pool3d, avg_pool3d) and grouped 2-D convolution, against NumPy loops; TF's CPU errors."""
import itertools

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _window(size, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + eff - size, 0) // 2


def _conv3d_ref(x, w, strides, padding, dil=(1, 1, 1)):
    n, *sp, c = x.shape
    ks = w.shape[:3]
    outs, pads = zip(*[_window(sp[i], ks[i], strides[i], dil[i], padding) for i in range(3)])
    y = np.zeros((n, *outs, w.shape[4]), np.float64)
    for o in itertools.product(*[range(v) for v in outs]):
        for k in itertools.product(*[range(v) for v in ks]):
            pos = [o[i] * strides[i] + k[i] * dil[i] - pads[i] for i in range(3)]
            if all(0 <= pos[i] < sp[i] for i in range(3)):
                y[(slice(None), *o)] += x[(slice(None), *pos)] @ w[k]
    return y


def _pool3d_ref(x, k, s, padding, kind):
    n, *sp, c = x.shape
    outs, pads = zip(*[_window(sp[i], k[i], s[i], 1, padding) for i in range(3)])
    y = np.zeros((n, *outs, c), np.float64)
    for o in itertools.product(*[range(v) for v in outs]):
        sl = []
        for i in range(3):
            lo = o[i] * s[i] - pads[i]
            sl.append(slice(max(lo, 0), min(lo + k[i], sp[i])))
        win = x[(slice(None), *sl)].reshape(n, -1, c)
        y[(slice(None), *o)] = win.max(1) if kind == "MAX" else win.mean(1)
    return y


RNG = np.random.RandomState(0)
X = RNG.randn(2, 5, 4, 3, 3).astype(np.float32)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("strides", [(1, 1, 1), (2, 1, 2), (3, 2, 1)])
def test_conv3d_matches_loops(padding, strides):
    w = RNG.randn(3, 2, 2, 3, 4).astype(np.float32)
    y = tf.nn.conv3d(X, w, [1, *strides, 1], padding)
    np.testing.assert_allclose(y.numpy(), _conv3d_ref(X, w, strides, padding), rtol=1e-4, atol=1e-4)


@pytest.mark.tf_eigen  # TF's oneDNN Conv3D accepts dilations and reports size mismatches otherwise
def test_convolution_3d_dilated_and_channels_first_shapes():
    w = RNG.randn(2, 2, 1, 3, 2).astype(np.float32)
    y = tf.nn.convolution(X, w, padding="SAME", dilations=[2, 1, 1])
    np.testing.assert_allclose(y.numpy(), _conv3d_ref(X, w, (1, 1, 1), "SAME", (2, 1, 1)), rtol=1e-4, atol=1e-4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supports dilated rates of 1"):
        tf.nn.conv3d(X, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 1, 1, 1])


def test_conv3d_gradient_is_the_transpose():
    w = RNG.randn(2, 2, 2, 3, 2).astype(np.float32)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME")
    g = RNG.randn(*y.shape).astype(np.float32)
    grad = tape.gradient(y, x, output_gradients=tf.constant(g))
    t = tf.nn.conv3d_transpose(tf.constant(g), w, list(X.shape), [1, 2, 1, 1, 1], "SAME")
    np.testing.assert_allclose(t.numpy(), grad.numpy(), rtol=1e-4, atol=1e-4)
    # <conv3d(x), g> == <x, conv3d_transpose(g)>
    lhs = float(np.sum(y.numpy() * g))
    assert abs(lhs - float(np.sum(X * t.numpy()))) < 1e-2 * max(1.0, abs(lhs))


@pytest.mark.tf_eigen  # TF's oneDNN Conv3D accepts dilations and reports size mismatches otherwise
def test_conv3d_transpose_size_mismatch():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Size of out_backprop doesn't match computed"):
        tf.nn.conv3d_transpose(tf.ones([2, 7, 6, 5, 3]), tf.ones([3, 2, 3, 3, 3]), [2, 14, 12, 10, 3],
                               [1, 2, 2, 2, 1], "VALID")


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("k,s", [((2, 2, 2), (2, 2, 2)), ((3, 2, 1), (1, 2, 1)), ((3, 3, 3), (2, 1, 2))])
def test_pool3d_matches_loops(padding, k, s):
    for f, kind in [(tf.nn.max_pool3d, "MAX"), (tf.nn.avg_pool3d, "AVG")]:
        y = f(X, [1, *k, 1], [1, *s, 1], padding)
        np.testing.assert_allclose(y.numpy(), _pool3d_ref(X, k, s, padding, kind), rtol=1e-5, atol=1e-5)


def test_grouped_conv2d_matches_per_group_convolutions():
    x = RNG.randn(2, 6, 6, 4).astype(np.float32)
    w = RNG.randn(3, 3, 2, 6).astype(np.float32)
    y = tf.nn.conv2d(x, w, 1, "SAME").numpy()
    parts = [tf.nn.conv2d(x[..., 2 * g:2 * g + 2], w[..., 3 * g:3 * g + 3], 1, "SAME").numpy() for g in range(2)]
    np.testing.assert_allclose(y, np.concatenate(parts, -1), rtol=1e-5, atol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="output depth must be evenly divisible by number of groups: 3 vs 2"):
        tf.nn.conv2d(tf.ones([1, 5, 5, 4]), tf.ones([3, 3, 2, 3]), 1, "SAME")
