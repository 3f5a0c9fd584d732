"""tf.vectorized_map: per-example results stacked, nested inputs and outputs, eager and inside
tf.function (fn takes TF's while-loop fallback)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_nested_and_in_function():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = tf.constant([1, 2, 3])

    @tf.function
    def f(x, y):
        return tf.vectorized_map(lambda a: {"s": tf.reduce_sum(a[0]) * tf.cast(a[1], tf.float32),
                                            "o": tf.tensordot(a[0], a[0], 0)}, (x, y))
    out = f(x, y)
    assert out["s"].numpy().tolist() == [3.0, 14.0, 33.0]
    np.testing.assert_allclose(out["o"].numpy(), np.einsum("bi,bj->bij", x.numpy(), x.numpy()))
    assert tf.vectorized_map(lambda a: a * a, y).numpy().tolist() == [1, 4, 9]


def test_per_example_gradients():
    w = tf.constant([1.0, -2.0])

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_sum(w * x) ** 2
        return tape.gradient(loss, w)
    xs = tf.constant([[1.0, 1.0], [2.0, 0.0]])
    g = tf.function(lambda xs: tf.vectorized_map(grad, xs))(xs)
    np.testing.assert_allclose(g.numpy(), [[-2.0, -2.0], [8.0, 0.0]])
