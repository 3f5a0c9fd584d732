"""Conv2D filter gradients computed in batch slices (issue 24): fn cuts the batch of a big
filter gradient into slices that run single-threaded on its task pool and adds their partial
gradients in slice order. The gradient must equal the float64 sum over the whole batch for any
batch (a tail slice shorter than the others, one image), stride, dilation, padding and channel
counts (HWIO or blocked filter layouts); the same code runs under TensorFlow 2.21 with
`--against-tf`. fn promises more: the same bits in eager and graph calls and on every run."""

import numpy as np
import pytest

from nn.reference import window
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def np_filter_grad(x, g, kshape, stride, dilation, padding):
    """dL/dk of L = sum(conv2d(x, k) * g) in float64 (NHWC, HWIO)."""
    kh, kw = kshape
    oh, pt, pb = window(x.shape[1], kh, stride[0], dilation[0], padding)
    ow, pl, pr = window(x.shape[2], kw, stride[1], dilation[1], padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    dk = np.zeros((kh, kw, x.shape[3], g.shape[3]))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, i * dilation[0]: i * dilation[0] + (oh - 1) * stride[0] + 1: stride[0],
                     j * dilation[1]: j * dilation[1] + (ow - 1) * stride[1] + 1: stride[1]]
            dk[i, j] = np.einsum("nhwc,nhwo->co", win, g.astype(np.float64))
    return dk


CASES = [
    # n, h, w, ic, oc, kernel, stride, dilation, padding
    (7, 24, 24, 16, 32, (3, 3), (1, 1), (1, 1), "SAME"),   # 4 slices of 2, 2, 2, 1 images
    (16, 32, 32, 3, 16, (3, 3), (1, 1), (1, 1), "SAME"),   # the ResNet stem: few input channels
    (16, 32, 32, 16, 16, (3, 3), (1, 1), (1, 1), "SAME"),  # a ResNet block
    (5, 31, 29, 8, 24, (5, 3), (2, 1), (1, 2), "VALID"),
    (9, 20, 20, 1, 64, (3, 3), (2, 2), (1, 1), "SAME"),
    (1, 40, 40, 32, 32, (3, 3), (1, 1), (1, 1), "SAME"),   # one image: nothing to slice
    (33, 12, 12, 24, 40, (1, 1), (1, 1), (1, 1), "VALID"),  # pointwise, odd batch
]


@pytest.mark.parametrize("n,h,w,ic,oc,kernel,stride,dilation,padding", CASES)
def test_filter_gradient_matches_float64(n, h, w, ic, oc, kernel, stride, dilation, padding):
    r = np.random.default_rng(n * 1000 + ic * 10 + oc)
    x = r.standard_normal((n, h, w, ic), np.float32)
    k = r.standard_normal(kernel + (ic, oc), np.float32) * 0.2
    oh = window(h, kernel[0], stride[0], dilation[0], padding)[0]
    ow = window(w, kernel[1], stride[1], dilation[1], padding)[0]
    g = r.standard_normal((n, oh, ow, oc), np.float32)

    def grad(x, k, g):
        with tf.GradientTape() as tape:
            tape.watch(k)
            y = tf.nn.conv2d(x, k, [1, *stride, 1], padding, dilations=[1, *dilation, 1])
        return tape.gradient(y, k, output_gradients=g)

    want = np_filter_grad(x, g, kernel, stride, dilation, padding)
    scale = np.abs(want).max()
    for got in (grad(tf.constant(x), tf.constant(k), tf.constant(g)),
                tf.function(grad)(tf.constant(x), tf.constant(k), tf.constant(g))):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5 * scale)


@pytest.mark.fn_only
@pytest.mark.parametrize("n", [7, 16])
def test_filter_gradient_same_bits_eager_graph_and_runs(n):
    r = np.random.default_rng(n)
    x = tf.constant(r.standard_normal((n, 24, 24, 16), np.float32))
    k = tf.constant(r.standard_normal((3, 3, 16, 32), np.float32))
    g = tf.constant(r.standard_normal((n, 24, 24, 32), np.float32))

    def grad(x, k, g):
        with tf.GradientTape() as tape:
            tape.watch(k)
            y = tf.nn.conv2d(x, k, 1, "SAME")
        return tape.gradient(y, k, output_gradients=g)

    traced = tf.function(grad)
    first = np.asarray(grad(x, k, g))
    for _ in range(5):
        np.testing.assert_array_equal(np.asarray(grad(x, k, g)), first)
        np.testing.assert_array_equal(np.asarray(traced(x, k, g)), first)
