"""A Python ``range`` converts to a tensor as the list of its values (TF's conversion), eagerly
and inside tf.function."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_range_converts():
    t = tf.constant(range(5))
    assert t.dtype == tf.int32 and t.numpy().tolist() == [0, 1, 2, 3, 4]
    assert tf.reshape(range(6), [2, 3]).shape == (2, 3)
    assert tf.convert_to_tensor(range(1, 7, 2), dtype=tf.float32).numpy().tolist() == [1.0, 3.0, 5.0]
    assert tf.constant(range(0)).shape == (0,)

    @tf.function
    def f(x):
        return x + tf.convert_to_tensor(range(3), tf.int64)
    assert f(tf.constant(1, tf.int64)).numpy().tolist() == [1, 2, 3]
