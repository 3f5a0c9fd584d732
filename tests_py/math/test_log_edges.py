"""tf.math.log on float32 at the edges of its domain (zeros, negatives, infinities, NaN, the
smallest normal, float32's max) and over several vector bodies and tails: the values TF 2.21
computes, eager and inside a traced function. fn's float32 Log is glibc logf's algorithm in
vector lanes (std::log's bits); TF's is Eigen's, so ordinary values agree within an ulp or two."""
import numpy as np
import pytest
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

# Subnormal inputs are left out: TF 2.21's threads treat them as zero (log -> -inf) where fn,
# as glibc, gives their logarithm (log(1e-40) = -92.1); fn did so before the vector lanes too.
X = np.array([-np.inf, -1.0, -0.0, 0.0, 1.1754944e-38, 1e-30, 0.25, 0.6999, 0.7, 1.0, 1.0000001, 2.0, np.e,
              10.0, 3.4028235e+38, np.inf, np.nan], np.float32)
# TF 2.21's tf.math.log(X).
TF_LOG = np.array([np.nan, np.nan, -np.inf, -np.inf, -87.3365478515625, -69.07755279541016, -1.3862943649291992,
                   -0.3568178415298462, -0.3566749691963196, 0.0, 1.1920927533992653e-07, 0.6931471824645996,
                   1.0, 2.3025851249694824, 88.72283935546875, np.inf, np.nan], np.float32)


def test_log_edges_eager():
    got = tf.math.log(tf.constant(X)).numpy()
    np.testing.assert_allclose(got, TF_LOG, rtol=3e-7)
    assert got[9] == 0.0 and not np.signbit(got[9])  # log(1) is +0


def test_log_edges_traced_with_neighbours():
    @tf.function
    def f(x):
        return tf.math.log(x) * 2.0

    got = f(tf.constant(X)).numpy()
    np.testing.assert_allclose(got, TF_LOG * 2, rtol=3e-7)


@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 15, 16, 17, 31, 1000])
def test_log_lengths_against_numpy(n):
    # Every length class (the 8- and 16-lane bodies and their tails), values spanning many binades.
    x = np.geomspace(1e-30, 1e30, n).astype(np.float32)
    got = tf.math.log(tf.constant(x)).numpy()
    np.testing.assert_allclose(got, np.log(x.astype(np.float64)), rtol=3e-7, atol=1e-7)


def test_log_gradient():
    x = tf.constant([0.5, 2.0, 8.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.log(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 0.5, 0.125])


def test_log_float64_and_bad_dtype():
    np.testing.assert_allclose(tf.math.log(tf.constant([np.e], tf.float64)).numpy(), [1.0], rtol=1e-15)
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 is not in the list of allowed values"):
        tf.math.log(tf.constant([1, 2], tf.int32))
