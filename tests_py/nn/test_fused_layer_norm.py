"""Layer norms and other elementwise trees ending in a reduction, inside a function: fn fuses them
(passes/fuse_elementwise.cpp: `x - mean` recomputed by both of its readers, the variance's square
and mean in one pass), TF's grappler does its own thing; either way the results are the plain
composition's, checked against NumPy in float64, and a repeated reduction axis fails when the
function runs, as in TF."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(11)


def np_layer_norm(x, g, b, axes):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = np.square(x - mean).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * g + b


@pytest.mark.parametrize("shape,axes", [((64, 256), [-1]), ((3, 2501), [1]), ((4, 5, 6), [1, 2]),
                                        ((2, 7, 1), [-1]), ((1, 1), [-1])])
def test_layer_norm_in_a_function_matches_numpy(shape, axes):
    x = RNG.standard_normal(shape).astype(np.float32) * 3 + 1
    stat = [1 if (d in axes or d - len(shape) in axes) else n for d, n in enumerate(shape)]
    g = RNG.standard_normal(stat[1:]).astype(np.float32)
    b = RNG.standard_normal(stat[1:]).astype(np.float32)

    @tf.function
    def ln(x):
        mean = tf.reduce_mean(x, axis=axes, keepdims=True)
        var = tf.reduce_mean(tf.square(x - mean), axis=axes, keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + 1e-5) * g + b, var

    y, var = ln(tf.constant(x))
    np.testing.assert_allclose(y.numpy(), np_layer_norm(x, g, b, tuple(axes)), rtol=2e-5, atol=2e-5)
    want_var = np.square(x.astype(np.float64) - x.mean(axis=tuple(axes), keepdims=True)).mean(
        axis=tuple(axes), keepdims=True)
    np.testing.assert_allclose(var.numpy(), want_var, rtol=2e-5, atol=1e-6)


def test_function_and_eager_layer_norm_agree():
    x = tf.constant(RNG.standard_normal((33, 600)).astype(np.float32))

    def ln(x):
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        var = tf.reduce_mean(tf.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + 1e-5)

    np.testing.assert_allclose(tf.function(ln)(x).numpy(), ln(x).numpy(), rtol=1e-5, atol=1e-6)


def test_sum_of_an_elementwise_tree_without_keepdims():
    x = RNG.uniform(-1, 1, (3, 4, 300)).astype(np.float32)

    @tf.function
    def f(x):
        e = tf.exp(x * x)
        return tf.reduce_sum(e, axis=[1, 2]), tf.reduce_sum(tf.tanh(x), axis=0), tf.reduce_mean(-x, axis=1)

    s, lead, mid = f(tf.constant(x))
    x64 = x.astype(np.float64)
    assert s.shape == (3,)
    np.testing.assert_allclose(s.numpy(), np.exp(x64 * x64).sum(axis=(1, 2)), rtol=1e-5)
    np.testing.assert_allclose(lead.numpy(), np.tanh(x64).sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mid.numpy(), (-x64).mean(axis=1), rtol=1e-5, atol=1e-6)


def test_a_shared_difference_read_by_a_matmul_and_elementwise_ops():
    x = RNG.standard_normal((16, 16)).astype(np.float32)
    w = RNG.standard_normal((16, 16)).astype(np.float32)

    @tf.function
    def f(x, w):
        d = x - w
        return tf.tanh(d * d), tf.matmul(d, w), tf.reduce_mean(tf.abs(d), axis=-1)

    t, m, r = f(tf.constant(x), tf.constant(w))
    d = x.astype(np.float64) - w
    np.testing.assert_allclose(t.numpy(), np.tanh(d * d), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.numpy(), d @ w, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(r.numpy(), np.abs(d).mean(axis=-1), rtol=1e-5)


@pytest.mark.parametrize("axes,keep", [([1, 1], False), ([-1, 1], True)])
def test_a_repeated_reduction_axis_fails_when_the_function_runs(axes, keep):
    # TF's shape function accepts it (the static shape counts the axis once); the kernel rejects it.
    @tf.function
    def f(x):
        return tf.reduce_mean(tf.square(x - 1.0), axis=axes, keepdims=keep)

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    concrete = f.get_concrete_function(x)
    assert concrete.structured_outputs.shape.as_list() == ([2, 1] if keep else [2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Invalid reduction arguments: Axes contains duplicate dimension: 1"):
        f(x)
