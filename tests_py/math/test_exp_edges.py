"""tf.exp on float32 at the edges of its range (overflow, underflow to subnormals and zero, NaN,
infinities), eager and inside a traced function where it is fused with its neighbours (the fused
kernel's vectorised exp): the values TF 2.21 computes, and fused equal to unfused."""
import numpy as np
import pytest
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = np.array([-np.inf, -104.5, -103.5, -100.0, -88.5, -87.5, -20.0, -1.0, -1e-30, 0.0, 1e-30, 0.5, 1.0,
              20.0, 88.0, 88.7, 88.8, np.inf, np.nan], np.float32)
# TF 2.21's tf.exp(X) (its threads flush subnormal results to zero: exp(-87.5) ~ 1e-38 prints 0;
# fn keeps the subnormal, so results below float32's smallest normal compare with that absolute
# tolerance).
TF_EXP = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.06115369216775e-09, 0.3678794503211975, 1.0, 1.0, 1.0,
                   1.6487212181091309, 2.7182817459106445, 485165184.0, 1.6516362661361307e+38,
                   3.325976864406685e+38, np.inf, np.inf, np.nan], np.float32)
TINY = float(np.finfo(np.float32).tiny)


def test_exp_edges_eager():
    got = tf.exp(tf.constant(X)).numpy()
    np.testing.assert_allclose(got, TF_EXP, rtol=1e-6, atol=TINY)


def test_exp_edges_fused_with_neighbours():
    @tf.function
    def f(x, m):
        return tf.exp(x - m) * 2.0

    got = f(tf.constant(X), tf.constant(0.0)).numpy()
    want = (TF_EXP.astype(np.float64) * 2).astype(np.float32)  # 88.7: 2 * 3.3e38 overflows to inf
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=2 * TINY)


def test_exp_fused_equals_unfused_over_tiles():
    # 3001 elements: several of the fused kernel's tiles, the last partial, and vector tails.
    x = np.linspace(-110.0, 95.0, 3001).astype(np.float32)
    x[7] = np.nan

    @tf.function
    def fused(x, m):
        return tf.exp(x - m) * 0.5

    got = fused(tf.constant(x), tf.constant(1.5)).numpy()
    want = (tf.exp(tf.constant(x) - 1.5) * 0.5).numpy()  # eager: one op at a time
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=TINY)
    assert np.isnan(got[7]) and np.isinf(got[-1])
