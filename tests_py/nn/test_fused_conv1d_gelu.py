"""Fusion of what users write around contractions (issue 24): `tf.nn.conv1d` is ExpandDims ->
Conv2D -> Squeeze, so its bias and activation come after the Squeeze; `tf.nn.gelu(approximate=True)`
computes `x ** 3` (a Pow by a constant). fn runs the bias/activation as the convolution's epilogue
through the Squeeze (passes/fuse_epilogue.cpp) and fuses the Pow into elementwise trees
(kernels/fused/elementwise.cpp). Values are checked against NumPy in float64 and NaN/inf against
TensorFlow 2.21 (the same code under `--against-tf`); under fn the fused function also equals the
same ops run eagerly bit for bit."""

import numpy as np
import pytest

from reference import conv1d_same as np_conv1d
from reference import gelu_tanh as np_gelu_tanh
from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

NAN, INF = np.float32("nan"), np.float32("inf")


@pytest.mark.parametrize("stride", [1, 2])
def test_conv1d_bias_relu_and_gelu_match_numpy(stride):
    r = np.random.default_rng(5)
    x, k, b = (
        r.standard_normal((3, 37, 6), np.float32),
        r.standard_normal((5, 6, 8), np.float32) * 0.3,
        r.standard_normal(8, np.float32),
    )

    def net(x):
        h = tf.nn.relu(tf.nn.conv1d(x, k, stride, "SAME") + b)
        return (
            h,
            tf.nn.gelu(tf.nn.conv1d(x, k, stride, "SAME"), approximate=True),
            tf.nn.gelu(tf.squeeze(tf.nn.conv2d(x[:, None], k[None], stride, "SAME"), 1) * 2.0 - b),
        )

    got = [np.asarray(t) for t in tf.function(net)(tf.constant(x))]
    c = np_conv1d(x, k, stride)
    for g, w in zip(
        got,
        [
            np.maximum(c + b, 0),
            np_gelu_tanh(c),
            0.5 * (2 * c - b) * (1 + np.vectorize(__import__("math").erf)((2 * c - b) / np.sqrt(2))),
        ],
    ):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
    if not IS_TF:  # fused in the function, op by op eagerly: the same bits
        for g, e in zip(got, net(tf.constant(x))):
            np.testing.assert_array_equal(g, np.asarray(e))


def test_conv1d_epilogue_keeps_nan_and_inf():
    # TF leaves the Relu after conv1d's Squeeze + bias unfused: NaN stays NaN (a fused Relu
    # post-op would give 0).
    x = np.array([NAN, INF, -INF, 1.0, -1.0, -0.0], np.float32).reshape(1, 6, 1)
    k, b = np.ones((1, 1, 1), np.float32), np.array([0.5], np.float32)
    got = np.asarray(tf.function(lambda x: tf.nn.relu(tf.nn.conv1d(x, k, 1, "VALID") + b))(tf.constant(x))).ravel()
    np.testing.assert_array_equal(got, np.array([NAN, INF, 0, 1.5, 0, 0.5], np.float32))
    got = np.asarray(tf.function(lambda x: tf.square(tf.nn.conv1d(x, k, 1, "VALID")) * 2.0)(tf.constant(x))).ravel()
    np.testing.assert_array_equal(got, np.array([NAN, INF, INF, 2, 2, 0], np.float32))


@pytest.mark.parametrize("e", [3.0, 2.0, -2.0, 0.0, 1.0, 4.0, -1.0, 2.5])
def test_pow_by_a_constant_special_values(e):
    # no denormal results: TF flushes them to zero
    x = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 1e-5, 1e12, 0.5, 7.25], np.float32)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), e).astype(np.float32)
        f = tf.function(lambda t: t**e * 1.0 + 0.0)  # Pow inside a fused tree
        got, eager = np.asarray(f(tf.constant(x))), np.asarray(tf.constant(x) ** e)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    np.testing.assert_allclose(eager, want, rtol=1e-6, atol=0)
    if not IS_TF:
        np.testing.assert_array_equal(got, eager)


def test_pow_gradient_through_gelu():
    r = np.random.default_rng(7)
    x = r.standard_normal((4, 33), np.float32) * 2

    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.gelu(x, approximate=True) * 1.5)
        return tape.gradient(y, x)

    u = x.astype(np.float64)
    t = np.tanh(0.7978845608028654 * (u + 0.044715 * u**3))
    want = 1.5 * (0.5 * (1 + t) + 0.5 * u * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * u * u))
    np.testing.assert_allclose(np.asarray(grad(tf.constant(x))), want, rtol=1e-5, atol=1e-5)


@pytest.mark.fn_only
def test_fused_plans():
    """The conv1d epilogue and the Pow fusion happen: no standalone bias add, activation or Pow."""
    r = np.random.default_rng(1)
    k, b = r.standard_normal((5, 4, 8), np.float32), r.standard_normal(8, np.float32)
    spec = tf.TensorSpec([2, 16, 4], tf.float32)
    f = tf.function(lambda x: tf.nn.relu(tf.nn.conv1d(x, k, 2, "SAME") + b))
    ops = f.get_concrete_function(spec)._core.plan_step_ops()
    assert "_FusedConv2D" in ops and not {"AddV2", "Relu", "_FusedElementwise", "Conv2D"} & set(ops), ops
    g = tf.function(lambda x: tf.nn.gelu(tf.nn.conv1d(x, k, 1, "SAME"), approximate=True))
    ops = g.get_concrete_function(spec)._core.plan_step_ops()
    assert "_FusedConv2D" in ops and not {"Pow", "Tanh", "Mul", "_FusedElementwise"} & set(ops), ops
    h = tf.function(lambda x: tf.nn.gelu(x, approximate=True))
    ops = h.get_concrete_function(tf.TensorSpec([3, 5], tf.float32))._core.plan_step_ops()
    assert ops.count("_FusedElementwise") == 1 and "Pow" not in ops, ops
