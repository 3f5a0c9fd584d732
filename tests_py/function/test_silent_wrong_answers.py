"""Regression tests of answers fn once got silently wrong; each expectation is TensorFlow's."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_tape_inside_function_sees_through_nested_functions():
    v = tf.Variable(2.0)

    @tf.function
    def inner(x):
        return x * v

    @tf.function
    def middle(x):
        return inner(x) + x

    @tf.function
    def outer(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = middle(x) * 3.0
        return tape.gradient(y, [x, v])

    dx, dv = outer(tf.constant(1.5))
    assert dx.numpy() == pytest.approx(9.0)
    assert dv.numpy() == pytest.approx(4.5)


def test_tape_inside_function_nested_function_watches_accessed_variables():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def loss():
        return tf.reduce_sum(v * v)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            y = loss()
        return tape.gradient(y, v)

    np.testing.assert_allclose(step().numpy(), [2.0, 4.0])


def test_variable_as_target_is_its_own_gradient():
    v0 = tf.Variable(1.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        result = v0
    g0, g1 = tape.gradient(result, [v0, v1])
    assert g0.numpy() == 1.0
    assert g1 is None


def test_variable_target_gets_ones_of_its_shape():
    v = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = v * 2.0
    np.testing.assert_allclose(tape.gradient([y, v], v).numpy(), [[3.0, 3.0]])


def test_tensor_target_equal_to_source_without_watch():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x
    assert tape.gradient(y, x).numpy() == 1.0


def test_unconnected_zero_for_variable_source():
    v = tf.Variable([1.0, 2.0, 3.0])
    w = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = w * 2.0
    gv, gw = tape.gradient(y, [v, w], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(gv.numpy(), [0.0, 0.0, 0.0])
    assert gv.dtype == tf.float32
    assert gw.numpy() == 2.0


def test_function_returning_filled_constant_is_eager():
    @tf.function
    def f():
        return tf.constant(2.5, shape=[3, 1])

    r = f()
    np.testing.assert_array_equal(r.numpy(), np.full((3, 1), 2.5, np.float32))
    assert r.shape == (3, 1)


def test_function_returning_empty_stack_is_eager():
    @tf.function
    def f():
        return tf.stack([]), tf.stack([[1, 2], [3, 4]], axis=1)

    a, b = f()
    assert a.numpy().shape == (0,)
    assert a.dtype == tf.float32
    np.testing.assert_array_equal(b.numpy(), [[1, 3], [2, 4]])


def _array():
    ta = tf.TensorArray(tf.float32, size=3)
    for i in range(3):
        ta = ta.write(i, float(i + 1))
    return ta


def test_eager_tensor_array_read_clears_element():
    ta = _array()
    assert ta.read(0).numpy() == 1.0
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 2.0, 3.0])
    ta.read(2)
    np.testing.assert_array_equal(ta.gather([2]).numpy(), [0.0])


def test_eager_tensor_array_second_read_raises():
    ta = _array()
    ta.read(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 1 twice because it was "
                       "cleared after a previous read"):
        ta.read(1)
    ta = ta.write(1, 5.0)
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 5.0, 3.0])


def test_eager_tensor_array_keeps_elements_without_clear_after_read():
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
    ta = ta.write(0, 1.0).write(1, 2.0)
    ta.read(0)
    assert ta.read(0).numpy() == 1.0
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0])


def test_tensor_array_in_function_does_not_clear():
    @tf.function
    def f():
        ta = _array()
        ta.read(0)
        return ta.stack(), ta.read(0)

    s, r = f()
    np.testing.assert_array_equal(s.numpy(), [1.0, 2.0, 3.0])
    assert r.numpy() == 1.0


def test_elementwise_on_a_slice_of_an_argument_leaves_the_argument_unchanged():
    # fn's fused elementwise kernel once wrote its result over a dying input that was a view
    # (x[0] shares x's storage), changing the caller's tensor.
    x = tf.constant(np.ones((2, 3), np.float32))

    @tf.function
    def f(x):
        return tf.tanh(x[0] * 2.0 + 1.0)

    out = f(x)
    np.testing.assert_allclose(out.numpy(), np.tanh(3.0) * np.ones(3, np.float32), rtol=1e-6)
    np.testing.assert_array_equal(x.numpy(), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(f(x).numpy(), out.numpy())
