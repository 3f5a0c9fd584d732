"""TensorArrays written in loops and stacked: fn keeps the elements of a list only its loop holds
in rows of one buffer (ops/tensor_list.cpp, ListArena), so stacking is a view. What a program
can see must not change: a stacked value or a read element stays as it was when the list is
written again, grown, or copied, and elements of other shapes still work.

Expected values are computed with NumPy from the same inputs, in fn and under TensorFlow.
"""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _x(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_stack_after_loop_then_rewrite_keeps_the_stacked_value():
    x = _x((3, 4))

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=5)
        for i in tf.range(5):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        first = ta.stack()
        kept = ta.read(2)
        again = ta.write(2, x * 100.0)  # the same index written again after stacking
        return first, kept, again.stack(), ta.stack()

    first, kept, second, first_again = (t.numpy() for t in f(tf.constant(x)))
    want = np.stack([x * i for i in range(5)])
    np.testing.assert_allclose(first, want, rtol=1e-6)
    np.testing.assert_allclose(first_again, want, rtol=1e-6)
    np.testing.assert_allclose(kept, x * 2, rtol=1e-6)
    want[2] = x * 100.0
    np.testing.assert_allclose(second, want, rtol=1e-6)


def test_dynamic_size_growth_keeps_earlier_reads():
    x = _x((2, 3), seed=1)

    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(0, x)
        early = ta.read(0)
        acc = tf.zeros_like(x)
        for i in tf.range(1, n):  # grows the list one element per iteration
            ta = ta.write(i, x + tf.cast(i, tf.float32))
            acc += ta.read(i // 2)
        return ta.stack(), early, acc

    stacked, early, acc = (t.numpy() for t in f(tf.constant(x), tf.constant(37)))
    rows = [x] + [x + i for i in range(1, 37)]
    np.testing.assert_allclose(stacked, np.stack(rows), rtol=1e-6)
    np.testing.assert_allclose(early, x, rtol=1e-6)
    np.testing.assert_allclose(acc, sum(rows[i // 2] for i in range(1, 37)), rtol=1e-5)


def test_elements_of_different_shapes_and_concat():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
        for i in tf.range(n):
            ta = ta.write(i, tf.range(tf.cast(i + 1, tf.float32)))  # element i has i + 1 values
        return ta.concat(), ta.read(2)

    cat, third = f(tf.constant(4))
    np.testing.assert_array_equal(cat.numpy(), np.concatenate([np.arange(i + 1) for i in range(4)]))
    np.testing.assert_array_equal(third.numpy(), [0.0, 1.0, 2.0])


def test_unwritten_rows_read_as_zeros_and_gather():
    x = _x((4,), seed=2)

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=6, element_shape=[4])
        for i in tf.range(0, 6, 2):
            ta = ta.write(i, x + tf.cast(i, tf.float32))
        return ta.stack(), ta.gather([4, 0])

    stacked, gathered = (t.numpy() for t in f(tf.constant(x)))
    want = np.zeros((6, 4), np.float32)
    for i in (0, 2, 4):
        want[i] = x + i
    np.testing.assert_allclose(stacked, want, rtol=1e-6)
    np.testing.assert_allclose(gathered, want[[4, 0]], rtol=1e-6)


def test_stacked_outputs_of_a_loop_feed_a_gradient():
    """An RNN's hidden states collected in a TensorArray, stacked, and differentiated."""
    r = np.random.default_rng(3)
    xs = r.normal(size=(6, 3, 4)).astype(np.float32)
    w0 = (r.normal(size=(4, 4)) * 0.3).astype(np.float32)
    w = tf.Variable(w0)

    @tf.function
    def f(xs):
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=6)
            h = tf.zeros([3, 4])
            for t in tf.range(6):
                h = tf.tanh(xs[t] + tf.matmul(h, w))
                ta = ta.write(t, h)
            loss = tf.reduce_sum(ta.stack() ** 2)
        return loss, tape.gradient(loss, w)

    loss, grad = f(tf.constant(xs))
    # NumPy forward and backward of the same recurrence.
    hs, h = [], np.zeros((3, 4), np.float64)
    for t in range(6):
        h = np.tanh(xs[t] + h @ w0)
        hs.append(h)
    dw, dh = np.zeros((4, 4)), np.zeros((3, 4))
    for t in reversed(range(6)):
        dh = dh + 2 * hs[t]
        dz = dh * (1 - hs[t] ** 2)
        prev = hs[t - 1] if t else np.zeros((3, 4))
        dw += prev.T @ dz
        dh = dz @ w0.T
    np.testing.assert_allclose(loss.numpy(), sum((h_**2).sum() for h_ in hs), rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), dw, rtol=1e-4, atol=1e-5)
