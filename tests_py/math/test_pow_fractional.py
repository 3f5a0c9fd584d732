"""x ** y for one non-integer float32 exponent (``(var + eps) ** -0.5`` in hand-written norms,
``x ** 1.5``) inside a traced function, where fn runs it in the fused kernel (glibc powf's
algorithm in vector lanes, std::pow's bits): the values TF 2.21 computes at the edges (zeros,
negatives, infinities, NaN, overflow, underflow), and a hand-written layer norm."""
import numpy as np
import pytest
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

INF, NAN = np.inf, np.nan
X = np.array([-INF, -2.0, -1.0, -0.0, 0.0, 1.1754944e-38, 1e-30, 0.25, 0.7, 1.0, 2.0, 10.0, 1e30, 3.4028235e38, INF, NAN],
             np.float32)
# TF 2.21's (x + 0.0) ** e in a tf.function. (1e-30 ** 1.5 is subnormal: TF flushes it to 0, fn
# keeps it, hence the absolute tolerance of float32's smallest normal.)
TF_POW = {
    -0.5: [0.0, NAN, NAN, INF, INF, 9.223372036854776e18, 1000000054099968.0, 2.0, 1.1952285766601562, 1.0,
           0.7071067690849304, 0.3162277638912201, 1.0000000036274937e-15, 5.421010862427522e-20, 0.0, NAN],
    1.5: [INF, NAN, NAN, 0.0, 0.0, 0.0, 0.0, 0.125, 0.5856620073318481, 1.0, 2.8284270763397217, 31.62277603149414,
          INF, INF, INF, NAN],
    2.5: [INF, NAN, NAN, 0.0, 0.0, 0.0, 0.0, 0.03125, 0.4099633991718292, 1.0, 5.656854152679443, 316.227783203125,
          INF, INF, INF, NAN],
    -1.5: [0.0, NAN, NAN, INF, INF, INF, INF, 8.0, 1.7074694633483887, 1.0, 0.3535533845424652, 0.03162277489900589,
           0.0, 0.0, 0.0, NAN],
}
TINY = float(np.finfo(np.float32).tiny)


@pytest.mark.parametrize("e", sorted(TF_POW))
def test_pow_fractional_edges_traced(e):
    @tf.function
    def f(x, e):
        return (x + 0.0) ** e

    got = f(tf.constant(X), tf.constant(e, tf.float32)).numpy()
    np.testing.assert_allclose(got, np.array(TF_POW[e], np.float32), rtol=3e-7, atol=TINY)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 17, 3001])
def test_pow_fractional_lengths(n):
    # Lengths around the 8-lane vectors and over several fused tiles; values over many binades.
    x = np.geomspace(1e-20, 1e20, n).astype(np.float32)

    @tf.function
    def f(x):
        return (x * 1.0) ** 1.5 + (x * 1.0) ** (1.0 / 3.0)

    want = x.astype(np.float64) ** 1.5 + x.astype(np.float64) ** (1.0 / 3.0)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), want, rtol=1e-6)  # two roundings and a sum


def test_layer_norm_by_hand_rsqrt_power():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 96)).astype(np.float32) * 3 + 1

    @tf.function
    def layer_norm(x):
        mean = tf.reduce_mean(x, -1, keepdims=True)
        var = tf.reduce_mean(tf.square(x - mean), -1, keepdims=True)
        return (x - mean) * (var + 1e-5) ** -0.5

    xd = x.astype(np.float64)
    m = xd.mean(-1, keepdims=True)
    want = (xd - m) / np.sqrt(((xd - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(layer_norm(tf.constant(x)).numpy(), want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("e", sorted(TF_POW))
def test_pow_fractional_edges_eager(e):
    # Eager: the unfused Pow op with a scalar exponent (the same vectorised std::pow in fn).
    got = (tf.constant(X) ** e).numpy()
    np.testing.assert_allclose(got, np.array(TF_POW[e], np.float32), rtol=3e-7, atol=TINY)
    got2 = tf.pow(tf.constant(X.reshape(4, 4)), tf.constant(e)).numpy().reshape(-1)
    np.testing.assert_allclose(got2, np.array(TF_POW[e], np.float32), rtol=3e-7, atol=TINY)


def test_pow_eager_scalar_exponent_equals_traced():
    x = np.geomspace(1e-6, 1e6, 1001).astype(np.float32)

    @tf.function
    def f(x):
        return (x * 1.0) ** 0.75

    np.testing.assert_array_equal((tf.constant(x) ** 0.75).numpy(), f(tf.constant(x)).numpy())
