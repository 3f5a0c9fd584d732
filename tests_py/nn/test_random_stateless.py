"""tf.random.stateless_uniform / stateless_normal (TensorFlow's numbers for a seed),
tf.random.shuffle and tf.random.categorical (distributions only: their numbers differ)."""
import numpy as np
import pytest

from _grad import traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_stateless_uniform_is_tf_numbers():
    r = tf.random.stateless_uniform([2, 3], seed=[7, 11])
    assert r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy(), [[0.72513735, 0.0771507, 0.5419409], [0.262321, 0.54793465, 0.38824093]],
                               rtol=1e-6)
    d = tf.random.stateless_uniform([5], seed=[7, 11], minval=2., maxval=4., dtype=tf.float64)
    np.testing.assert_allclose(d.numpy(), [3.60219884, 2.67105525, 2.76695474, 3.9256201, 3.25883841], rtol=1e-8)
    # Same seed, same numbers.
    again = tf.random.stateless_uniform([2, 3], seed=[7, 11])
    assert np.array_equal(r.numpy(), again.numpy())


def test_stateless_normal_is_tf_numbers():
    r = tf.random.stateless_normal([5], seed=tf.constant([-3, 2 ** 40], tf.int64))
    np.testing.assert_allclose(r.numpy(), [1.135596, 0.97506636, 0.13005693, 2.1733987, -0.4497252], rtol=1e-5)
    m = tf.random.stateless_normal([3], seed=[1, 2], mean=1., stddev=2.)
    np.testing.assert_allclose(m.numpy(), [2.0882201, 1.4147606, 1.1471286], rtol=1e-5)


def test_stateless_in_function_and_errors():
    @tf.function
    def f(seed):
        return tf.random.stateless_uniform([3], seed=seed)

    np.testing.assert_allclose(f(tf.constant([7, 11])).numpy(), [0.72513735, 0.0771507, 0.5419409], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[1\]"):
        tf.random.stateless_uniform([2], seed=[1])
    assert traced_shapes(lambda s: tf.random.stateless_normal([4, 2], seed=s), tf.TensorSpec([2], tf.int32)) == \
        [[4, 2]]


def test_shuffle_is_a_permutation():
    x = tf.range(20)
    s = tf.random.shuffle(x, seed=5)
    assert s.shape == (20,) and s.dtype == tf.int32
    assert sorted(s.numpy().tolist()) == list(range(20))
    m = tf.random.shuffle(tf.reshape(tf.range(12), [6, 2]))
    assert sorted(m.numpy()[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    assert (m.numpy()[:, 1] - m.numpy()[:, 0]).tolist() == [1] * 6


def test_categorical():
    c = tf.random.categorical([[0., 0.]], 4)
    assert c.shape == (1, 4) and c.dtype == tf.int64
    assert tf.random.categorical([[0., 0.]], 3, dtype=tf.int32).dtype == tf.int32
    draws = tf.random.categorical(tf.math.log([[0.1, 0.9], [1.0, 1e-30]]), 2000, seed=1).numpy()
    assert 0.85 < draws[0].mean() < 0.95
    assert draws[1].max() == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits should be a matrix, got shape \[2\]"):
        tf.random.categorical([0., 0.], 4)
