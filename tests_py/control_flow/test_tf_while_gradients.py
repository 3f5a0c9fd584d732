"""Gradients through While loops (tf.while_loop and AutoGraph's tensor for/while loops).

Each gradient is compared with the same computation unrolled in Python (no While node) and, for
scalars, with central finite differences; the TF run proves TensorFlow gives the same values.
"""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _np(ts):
    return [None if t is None else np.asarray(t.numpy()) for t in ts]


def _close(a, b, tol=1e-4):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x is None) == (y is None), (a, b)
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def test_while_loop_gradient_inside_function_matches_unrolled():
    w = tf.Variable(1.5)

    @tf.function
    def looped(x):
        with tf.GradientTape() as t:
            t.watch(x)
            _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x * w), (0, tf.constant(1.0)))
        return t.gradient(y, [x, w])

    @tf.function
    def unrolled(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.constant(1.0)
            for _ in range(3):
                y = y * x * w
        return t.gradient(y, [x, w])

    x = tf.constant(2.0)
    _close(_np(looped(x)), _np(unrolled(x)))
    _close(_np(looped(x)), [np.float32(3 * 4 * 1.5 ** 3), np.float32(3 * 1.5 ** 2 * 8)])


def test_tape_outside_a_function_with_a_while_loop():
    w = tf.Variable(0.3)

    @tf.function
    def f(x):
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x + w), (0, x))
        return y

    def g(x):
        y = x
        for _ in range(3):
            y = tf.sin(y) * x + w
        return y

    x = tf.constant(0.7)
    with tf.GradientTape() as t1:
        t1.watch(x)
        a = f(x)
    with tf.GradientTape() as t2:
        t2.watch(x)
        b = g(x)
    got = _np(t1.gradient(a, [x, w]))
    _close(got, _np(t2.gradient(b, [x, w])))
    eps = 1e-3
    fd = (g(tf.constant(0.7 + eps)).numpy() - g(tf.constant(0.7 - eps)).numpy()) / (2 * eps)
    np.testing.assert_allclose(got[0], fd, rtol=1e-2)


def test_finite_differences_through_while_loop():
    @tf.function
    def f(x):
        _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.tanh(y * 1.3) + x), (0, x))
        return y

    x = tf.constant(0.4)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    g = t.gradient(y, x).numpy()
    eps = 1e-3
    fd = (f(tf.constant(0.4 + eps)).numpy() - f(tf.constant(0.4 - eps)).numpy()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-2)


def test_autograph_while_statement_gradient():
    w = tf.Variable(1.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            while y < 100.0:
                y = y * y + w
        return t.gradient(y, [x, w])

    def unrolled(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in range(4):   # 1.2 -> 2.44 -> 6.95 -> 49.3 -> 2432
                y = y * y + w
        return t.gradient(y, [x, w])

    x = tf.constant(1.2)
    _close(_np(f(x)), _np(unrolled(x)), tol=1e-3)


def test_zero_iterations_gradient():
    w = tf.Variable(2.0)

    @tf.function
    def f(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            s = x
            for _ in tf.range(n):
                s = s * w
        return t.gradient(s, [x, w])

    _close(_np(f(tf.constant(3.0), tf.constant(0))), [np.float32(1.0), np.float32(0.0)])
    _close(_np(f(tf.constant(3.0), tf.constant(2))), [np.float32(4.0), np.float32(12.0)])


def test_rnn_gradient_matches_unrolled():
    W = tf.Variable(np.array([[0.5, -0.2], [0.1, 0.3]], np.float32))
    xs = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 1, 2) / 6)

    @tf.function
    def looped(xs):
        with tf.GradientTape() as t:
            h = tf.zeros([1, 2])
            for i in tf.range(tf.shape(xs)[0]):
                h = tf.tanh(tf.matmul(h, W) + xs[i])
            loss = tf.reduce_sum(h)
        return t.gradient(loss, [W])

    def unrolled(xs):
        with tf.GradientTape() as t:
            h = tf.zeros([1, 2])
            for i in range(3):
                h = tf.tanh(tf.matmul(h, W) + xs[i])
            loss = tf.reduce_sum(h)
        return t.gradient(loss, [W])

    _close(_np(looped(xs)), _np(unrolled(xs)))


def test_nested_loops_and_maximum_iterations():
    @tf.function
    def nested(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in tf.range(2):
                for _ in tf.range(3):
                    y = y * x
        return t.gradient(y, x)

    @tf.function
    def bounded(x):
        with tf.GradientTape() as t:
            t.watch(x)
            _, y = tf.while_loop(lambda i, y: True, lambda i, y: (i + 1, y * x), (0, x), maximum_iterations=4)
        return t.gradient(y, x)

    np.testing.assert_allclose(nested(tf.constant(1.1)).numpy(), 7 * 1.1 ** 6, rtol=1e-5)
    np.testing.assert_allclose(bounded(tf.constant(1.1)).numpy(), 5 * 1.1 ** 4, rtol=1e-5)


def test_tensor_array_rnn_gradient_matches_unrolled():
    W = tf.Variable(np.array([[0.5, -0.2], [0.1, 0.3]], np.float32))
    xs = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 1, 2) / 6)

    @tf.function
    def looped(xs):
        with tf.GradientTape() as t:
            t.watch(xs)
            h = tf.zeros([1, 2])
            ta = tf.TensorArray(tf.float32, size=3)
            for i in tf.range(3):
                h = tf.tanh(tf.matmul(h, W) + xs[i])
                ta = ta.write(i, h)
            loss = tf.reduce_sum(ta.stack() * tf.constant([1.0, 2.0, 3.0])[:, None, None])
        return t.gradient(loss, [W, xs])

    def unrolled(xs):
        with tf.GradientTape() as t:
            t.watch(xs)
            h = tf.zeros([1, 2])
            hs = []
            for i in range(3):
                h = tf.tanh(tf.matmul(h, W) + xs[i])
                hs.append(h)
            loss = tf.reduce_sum(tf.stack(hs) * tf.constant([1.0, 2.0, 3.0])[:, None, None])
        return t.gradient(loss, [W, xs])

    _close(_np(looped(xs)), _np(unrolled(xs)))


def test_guide_dynamic_rnn_trained_with_a_tape():
    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    data = tf.Variable(tf.reshape(tf.range(24.0), [2, 3, 4]))
    init = tf.Variable(tf.ones([2, 4]))
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(dynamic_rnn(rnn_step, data, init) * tf.constant([1.0, 2.0, 3.0])[None, :, None])
    g_data, g_init = t.gradient(loss, [data, init])
    # state_t = init + sum_{s<=t} x_s; loss weights time t by (t + 1).
    np.testing.assert_allclose(g_init.numpy(), np.full([2, 4], 6.0))
    np.testing.assert_allclose(g_data.numpy(), np.broadcast_to(np.array([6.0, 5.0, 3.0])[None, :, None], [2, 3, 4]))


def test_tensor_array_read_inside_loop_gradient():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float32, size=3).unstack(x)
            s = tf.constant(0.0)
            for i in tf.range(3):
                s = s * 2.0 + ta.read(i) ** 2
        return t.gradient(s, x)

    x = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(f(x).numpy(), [8.0, 8.0, 6.0])


def test_gradient_does_not_repeat_the_loops_side_effects(capfd):
    w = tf.Variable(2.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            for i in tf.range(3):
                tf.print('step', i)
                y = y * w
        return t.gradient(y, [x, w])

    _close(_np(f(tf.constant(1.5))), [np.float32(8.0), np.float32(18.0)])
    err = capfd.readouterr().err
    assert [ln for ln in err.splitlines() if ln.startswith('step')] == ['step 0', 'step 1', 'step 2']


def test_persistent_tape_outside_function_with_tensor_array_loop():
    w = tf.Variable(2.0)

    @tf.function
    def g(x):
        ta = tf.TensorArray(tf.float32, size=3)
        h = x
        for i in tf.range(3):
            h = tf.sin(h) * w
            ta = ta.write(i, h)
        return ta.stack(), h

    def unrolled(x):
        hs, h = [], x
        for _ in range(3):
            h = tf.sin(h) * w
            hs.append(h)
        return tf.stack(hs), h

    x = tf.constant(0.5)
    results = []
    for fn_ in (g, unrolled):
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            s, h = fn_(x)
            loss1 = tf.reduce_sum(s)
            loss2 = h * 2.0
        results.append(_np(t.gradient(loss1, [x, w])) + _np(t.gradient(loss2, [x, w])) +
                       _np(t.gradient([loss1, loss2], [x, w])))
    _close(results[0], results[1])


def test_second_order_gradient_through_while_loop():
    w = tf.Variable(0.8)

    def body(i, y, x):
        return i + 1, tf.sin(y * x) * w + x

    @tf.function
    def looped(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: body(i, y, x), (0, x))
            g = t1.gradient(y, x)
        return [g] + t2.gradient(g, [x, w])

    @tf.function
    def unrolled(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                i, y = 0, x
                for _ in range(3):
                    i, y = body(i, y, x)
            g = t1.gradient(y, x)
        return [g] + t2.gradient(g, [x, w])

    x = tf.constant(0.6)
    _close(_np(looped(x)), _np(unrolled(x)))

    @tf.function
    def cube(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), (0, tf.constant(1.0)))
            g = t1.gradient(y, x)
        return g, t2.gradient(g, x)
    _close(_np(cube(tf.constant(2.0))), [np.float32(12.0), np.float32(12.0)])


def test_tensor_array_concat_gradient_in_a_loop():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float32, size=3)
            for i in tf.range(3):
                ta = ta.write(i, x * tf.cast(i + 1, tf.float32))
            r = tf.reduce_sum(ta.concat() ** 2)
        return t.gradient(r, x)

    def unrolled(x):
        with tf.GradientTape() as t:
            t.watch(x)
            r = tf.reduce_sum(tf.concat([x * float(i + 1) for i in range(3)], 0) ** 2)
        return t.gradient(r, x)

    x = tf.constant([1.0, 2.0, 3.0])
    _close(_np([f(x)]), _np([unrolled(x)]))


def test_gradient_reads_each_iterations_outputs_and_only_requested_sums():
    # The backward loop reads each iteration's outputs from the stacks (exp's, sigmoid's and
    # tanh's gradients use their outputs) instead of recomputing the body; a loop var passed
    # through unchanged and an unrequested capture gradient (xs) must not disturb that.
    x0 = tf.constant(np.array([[0.3, -0.2]], np.float32))
    xs = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 1, 2))
    w = tf.Variable(np.array([[0.4, -0.3], [0.2, 0.1]], np.float32))

    def body(a, b, c, t):
        a = tf.tanh(tf.matmul(a, w) + xs[t])
        b = tf.exp(b * 0.5) * tf.sigmoid(a)
        return a, b, c

    @tf.function
    def looped(x0, which):
        with tf.GradientTape() as g:
            g.watch(x0)
            a, b, c = x0, x0 * 0.1, x0 + 1.0
            for t in tf.range(4):
                a, b, c = body(a, b, c, t)
            loss = tf.reduce_sum(a * b) + tf.reduce_sum(c)
        return g.gradient(loss, [w, x0] if which else [w])

    def unrolled(x0, which):
        with tf.GradientTape() as g:
            g.watch(x0)
            a, b, c = x0, x0 * 0.1, x0 + 1.0
            for t in range(4):
                a, b, c = body(a, b, c, t)
            loss = tf.reduce_sum(a * b) + tf.reduce_sum(c)
        return g.gradient(loss, [w, x0] if which else [w])

    for which in (0, 1):
        _close(_np(looped(x0, which)), _np(unrolled(x0, which)))
