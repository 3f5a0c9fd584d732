"""tf.random.stateless_uniform in float16 / bfloat16: TF's numbers for the same seed (one Philox
sample per element, its low mantissa bits), scaled to [minval, maxval) in the dtype."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _values(x):
    return [float(v) for v in tf.cast(tf.reshape(x, [-1]), tf.float32).numpy()]


def test_float16_uniform_matches_tf():
    x = tf.random.stateless_uniform([6], seed=[1, 2], dtype=tf.float16)
    assert x.dtype == tf.float16
    assert _values(x) == [0.54296875, 0.2353515625, 0.060546875, 0.8935546875, 0.1435546875, 0.4423828125]
    y = tf.random.stateless_uniform([2, 3], seed=[7, 3], minval=-2, maxval=3, dtype=tf.float16)
    assert y.shape == (2, 3)
    assert _values(y) == [2.55078125, 1.94921875, 1.79296875, -1.3017578125, -0.3203125, 0.431640625]


def test_bfloat16_uniform_matches_tf():
    x = tf.random.stateless_uniform([6], seed=[1, 2], dtype=tf.bfloat16)
    assert x.dtype == tf.bfloat16
    assert _values(x) == [0.34375, 0.8828125, 0.484375, 0.1484375, 0.1484375, 0.5390625]
    y = tf.random.stateless_uniform([2, 3], seed=[7, 3], minval=-2, maxval=3, dtype=tf.bfloat16)
    assert _values(y) == [-0.59375, -0.3984375, -1.6484375, -1.4140625, 1.4375, 2.4375]


def test_half_uniform_in_a_function():
    f = tf.function(lambda s: tf.random.stateless_uniform([3], seed=s, dtype=tf.float16))
    assert _values(f(tf.constant([1, 2]))) == [0.54296875, 0.2353515625, 0.060546875]
