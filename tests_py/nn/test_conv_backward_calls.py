"""Conv2D backward data and filter passes called again and again (issue 24): fn's oneDNN kernels
keep their execute arguments per thread and re-point them at each call's buffers, and reorder a
blocked filter (or filter gradient) through a buffer made once. Each call must read its own
inputs: gradients of several inputs in turn, through one traced function, against NumPy in
float64 (the same code runs under TensorFlow 2.21 with `--against-tf`)."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def np_conv_grads(x, k, g, stride):
    """dL/dx and dL/dk of L = sum(conv2d(x, k, stride, SAME) * g), in float64 (NHWC, HWIO)."""
    n, h, w, _ = x.shape
    kh, kw, _, _ = k.shape
    oh, ow = -(-h // stride), -(-w // stride)
    ph, pw = max((oh - 1) * stride + kh - h, 0), max((ow - 1) * stride + kw - w, 0)
    xp = np.pad(x.astype(np.float64), ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    dxp, dk = np.zeros_like(xp), np.zeros(k.shape)
    g64, k64 = g.astype(np.float64), k.astype(np.float64)
    for i in range(kh):
        for j in range(kw):
            win = xp[:, i : i + (oh - 1) * stride + 1 : stride, j : j + (ow - 1) * stride + 1 : stride]
            dk[i, j] = np.einsum("nhwc,nhwo->co", win, g64)
            dxp[:, i : i + (oh - 1) * stride + 1 : stride, j : j + (ow - 1) * stride + 1 : stride] += np.einsum(
                "nhwo,co->nhwc", g64, k64[i, j]
            )
    return dxp[:, ph // 2 : ph // 2 + h, pw // 2 : pw // 2 + w], dk


@pytest.mark.parametrize("ic,oc,stride", [(1, 32, 1), (16, 32, 1), (32, 64, 2), (8, 24, 1)])
def test_conv2d_gradients_of_successive_calls(ic, oc, stride):
    r = np.random.default_rng(ic * 100 + oc)
    shape = (4, 18, 17, ic)

    @tf.function
    def grads(x, k, g):
        with tf.GradientTape() as tape:
            tape.watch([x, k])
            loss = tf.reduce_sum(tf.nn.conv2d(x, k, stride, "SAME") * g)
        return tape.gradient(loss, [x, k])

    for call in range(3):  # new buffers each call: a stale argument would read the last call's
        x = r.standard_normal(shape, np.float32)
        k = r.standard_normal((3, 3, ic, oc), np.float32) * 0.2
        g = r.standard_normal((4, -(-18 // stride), -(-17 // stride), oc), np.float32)
        dx, dk = grads(tf.constant(x), tf.constant(k), tf.constant(g))
        want_dx, want_dk = np_conv_grads(x, k, g, stride)
        np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-4, atol=1e-4, err_msg=f"call {call}")
        np.testing.assert_allclose(np.asarray(dk), want_dk, rtol=1e-4, atol=5e-4, err_msg=f"call {call}")
