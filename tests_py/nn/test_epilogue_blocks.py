"""Contraction epilogues over big outputs (issue 24): fn runs an elementwise tail after a
convolution or matmul (passes/fuse_epilogue.cpp) in blocks on its task pool when the output has
at least 65,536 elements (ops/fused_contraction.cpp). Values are checked against NumPy in float64
(the same code runs under TensorFlow 2.21 with `--against-tf`), whatever the operands'
broadcasts: per-channel vectors, full-shape tensors, scalars, and a [W, C] operand whose period
divides no block. That the blocks give the bits of one run over the whole output is checked in
tests_cpp/test_fuse_epilogue.cpp (eager ops of this size are oneDNN's own formulas, not the
fused kernel's, so they are no bit-for-bit reference here)."""

import math

import numpy as np
import pytest

from reference import conv1d_same as np_conv1d
from reference import gelu_tanh as np_gelu_tanh
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

NAN, INF = np.float32("nan"), np.float32("inf")


def check(f, args, want, rtol=3e-5, atol=3e-5):
    got = [np.asarray(t) for t in tf.function(f)(*[tf.constant(a) for a in args])]
    assert len(got) == len(want) or not want
    for g, w in zip(got, want):
        assert g.size >= 2**16
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return got


@pytest.mark.parametrize("n,w", [(16, 300), (7, 37 * 20 + 3)])
def test_conv1d_epilogues_over_big_outputs(n, w):
    r = np.random.default_rng(11)
    x = r.standard_normal((n, w, 16), np.float32)
    k = r.standard_normal((5, 16, 64), np.float32) * 0.2
    b = r.standard_normal(64, np.float32)
    c = np_conv1d(x, k, 1)
    full = r.standard_normal(c.shape, np.float32)
    wc = r.standard_normal(c.shape[1:], np.float32)  # [W, C]: one period is W * C elements

    def net(x):
        h = tf.nn.conv1d(x, k, 1, "SAME")
        return (
            tf.nn.relu(h + b),
            tf.nn.gelu(tf.nn.conv1d(x, k, 1, "SAME"), approximate=True),
            tf.nn.conv1d(x, k, 1, "SAME") * 0.5 - full,
            tf.tanh(tf.nn.conv1d(x, k, 1, "SAME") + wc),
        )

    check(net, [x], [np.maximum(c + b, 0), np_gelu_tanh(c), c * 0.5 - full, np.tanh(c + wc)])


def test_conv2d_relu_without_bias_over_a_big_output():
    r = np.random.default_rng(3)
    x = r.standard_normal((9, 30, 31, 2), np.float32)
    k = r.standard_normal((3, 3, 2, 32), np.float32) * 0.3
    x[4, 10, 10, 1] = NAN  # TF leaves Relu after a Conv2D without BiasAdd unfused: NaN stays NaN
    x[6, 3, 3, 0] = INF
    got = check(lambda x: (tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME")),), [x], [])[0]
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    with np.errstate(invalid="ignore"):
        c = sum(
            np.einsum("nhwc,co->nhwo", xp[:, i : i + 30, j : j + 31], k[i, j].astype(np.float64))
            for i in range(3)
            for j in range(3)
        )
        want = np.where(np.isnan(c), np.nan, np.maximum(c, 0))
    assert got.size >= 2**16 and np.isnan(got).sum() == np.isnan(want).sum() > 0
    np.testing.assert_allclose(got, want, rtol=3e-5, atol=3e-5)


def test_matmul_gelu_over_a_big_output():
    r = np.random.default_rng(5)
    a = r.standard_normal((300, 64), np.float32)
    w = r.standard_normal((64, 384), np.float32) * 0.2
    b = r.standard_normal(384, np.float32)
    c = a.astype(np.float64) @ w.astype(np.float64) + b
    erf = np.vectorize(math.erf)
    check(
        lambda a: (tf.nn.gelu(tf.matmul(a, w) + b, approximate=True), tf.nn.gelu(tf.matmul(a, w) + b)),
        [a],
        [np_gelu_tanh(c), 0.5 * c * (1 + erf(c / np.sqrt(2)))],
        rtol=1e-4,
        atol=1e-4,
    )
