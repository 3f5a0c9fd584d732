"""Fused elementwise trees whose intermediates are read elsewhere too (stacked for a While
loop's gradient, returned, read by a later tree) write them as extra outputs
(passes/fuse_elementwise.cpp): an LSTM or GRU cell in a `tf.range` loop under a tape gives the
same loss and gradients in a function as eagerly and as NumPy in float64."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def np_sigmoid(a):
    return 1 / (1 + np.exp(-a))


def np_lstm(xs, wx, wh, b, h0):
    h, c = h0, h0
    for t in range(xs.shape[0]):
        z = xs[t] @ wx + h @ wh + b
        i, f, g, o = np.split(z, 4, axis=1)
        c = np_sigmoid(f) * c + np_sigmoid(i) * np.tanh(g)
        h = np_sigmoid(o) * np.tanh(c)
    return h, c


@pytest.mark.parametrize("steps,batch,hidden", [(1, 1, 1), (5, 3, 8), (7, 4, 300)])
def test_lstm_cell_in_a_loop_under_a_tape(steps, batch, hidden):
    rng = np.random.default_rng(steps * 100 + hidden)
    xs = rng.uniform(-1, 1, (steps, batch, 6)).astype(np.float32)
    wx = rng.uniform(-0.5, 0.5, (6, 4 * hidden)).astype(np.float32)
    wh = rng.uniform(-0.5, 0.5, (hidden, 4 * hidden)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (4 * hidden,)).astype(np.float32)
    h0 = np.zeros((batch, hidden), np.float32)
    params = [tf.Variable(v) for v in (wx, wh, b)]

    def step(xs):
        with tf.GradientTape() as tape:
            h, c = tf.constant(h0), tf.constant(h0)
            for t in tf.range(steps):
                z = tf.matmul(xs[t], params[0]) + tf.matmul(h, params[1]) + params[2]
                i, f, g, o = tf.split(z, 4, axis=1)
                c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
                h = tf.sigmoid(o) * tf.tanh(c)
            loss = tf.reduce_sum(tf.square(h)) + tf.reduce_sum(c)
        return [loss, h, c] + tape.gradient(loss, params)

    got = [t.numpy() for t in tf.function(step)(tf.constant(xs))]
    eager = [t.numpy() for t in step(tf.constant(xs))]
    h, c = np_lstm(*(a.astype(np.float64) for a in (xs, wx, wh, b, h0)))
    # float32 products over 300 columns, 7 steps: a few 1e-6 of absolute error
    np.testing.assert_allclose(got[1], h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[0], np.sum(h * h) + np.sum(c), rtol=1e-4)
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_intermediates_returned_and_read_by_later_trees(n):
    rng = np.random.default_rng(n)
    x = rng.uniform(-2, 2, (n,)).astype(np.float32)
    y = rng.uniform(-2, 2, (n,)).astype(np.float32)

    @tf.function
    def f(x, y):
        s = tf.sigmoid(x * y)  # costly: computed once, in the first reader's tree
        t = tf.tanh(s + y)
        u = s * t - x
        v = tf.nn.relu(s - y) * t
        return s, t, u, v, tf.reduce_mean(tf.square(u))

    got = [a.numpy() for a in f(tf.constant(x), tf.constant(y))]
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    s = np_sigmoid(x64 * y64)
    t = np.tanh(s + y64)
    u = s * t - x64
    want = [s, t, u, np.maximum(s - y64, 0) * t, np.mean(u * u)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
