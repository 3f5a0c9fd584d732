"""``GradientTape.jacobian`` inside a Function whose target's shape is known only at run time (a
graph loop over the target's elements; TF uses pfor, same values)."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_jacobian_of_a_target_with_unknown_shape():
    @tf.function
    def jac(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x)
    c = jac.get_concrete_function(tf.TensorSpec([None], tf.float32))
    np.testing.assert_array_equal(c(tf.constant([1.0, 2.0])).numpy(), [[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_array_equal(c(tf.constant([1.0, 2.0, 3.0])).numpy(), np.diag([2.0, 4.0, 6.0]))


def test_jacobian_unknown_batch_with_variable_and_unwatched_sources():
    v = tf.Variable([[1.0, 2.0]])

    @tf.function
    def jac(x):
        with tf.GradientTape() as tape:
            y = tf.matmul(x, v, transpose_b=True) * 2.0
        return tape.jacobian(y, [v, x])
    dv, dx = jac.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))(tf.constant([[1.0, 1.0], [2.0, 3.0]]))
    assert dx is None
    np.testing.assert_array_equal(dv.numpy(), [[[[2.0, 2.0]]], [[[4.0, 6.0]]]])
