"""While gradients that read the body's intermediate values (a sigmoid's or tanh's output, a
matmul's input slice, top_k's indices): fn's forward loop stacks them, as TF's While gradient
accumulates intermediates, instead of the backward loop recomputing the body (ops/while_grad.cpp).

Each looped gradient is compared with the same computation unrolled in Python (no While node,
each op run once: the reference), in fn and under TensorFlow.
"""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _close(a, b, tol=2e-5):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x is None) == (y is None), (a, b)
        if x is not None:
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _lstm_cell(x, h, c, wx, wh, b):
    z = tf.matmul(x, wx) + tf.matmul(h, wh) + b
    i, f, g, o = tf.split(z, 4, axis=1)
    c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
    return tf.sigmoid(o) * tf.tanh(c), c


@pytest.mark.parametrize("batch,steps,d_in,d_h", [(3, 5, 4, 6), (32, 7, 32, 128)])
def test_lstm_from_matmuls_gradient_matches_unrolled(batch, steps, d_in, d_h):
    r = _rng(batch)
    xs = tf.constant(r.normal(size=(steps, batch, d_in)).astype(np.float32))
    y = tf.constant(r.normal(size=(batch, d_h)).astype(np.float32) * 0.5)
    wx = tf.Variable(r.normal(size=(d_in, 4 * d_h)).astype(np.float32) * 0.15)
    wh = tf.Variable(r.normal(size=(d_h, 4 * d_h)).astype(np.float32) * 0.08)
    b = tf.Variable(r.normal(size=(4 * d_h,)).astype(np.float32) * 0.1)

    def loss_and_grads(xs, n_steps):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            h = c = tf.zeros([batch, d_h])
            for t in n_steps:
                h, c = _lstm_cell(xs[t], h, c, wx, wh, b)
            loss = tf.reduce_mean(tf.square(h - y)) + tf.reduce_sum(c) * 1e-3
        return [loss] + tape.gradient(loss, [wx, wh, b, xs])

    looped = tf.function(lambda xs: loss_and_grads(xs, tf.range(steps)))
    _close(looped(xs), loss_and_grads(xs, range(steps)))


def test_gru_gradient_matches_unrolled():
    r = _rng(1)
    xs = tf.constant(r.normal(size=(6, 4, 3)).astype(np.float32))
    wx = tf.Variable(r.normal(size=(3, 15)).astype(np.float32) * 0.3)
    wh = tf.Variable(r.normal(size=(5, 15)).astype(np.float32) * 0.3)
    bias = tf.Variable(r.normal(size=(15,)).astype(np.float32) * 0.1)

    def run(xs, n_steps):
        with tf.GradientTape() as tape:
            h = tf.ones([4, 5]) * 0.1
            for t in n_steps:
                xr, xz, xn = tf.split(tf.matmul(xs[t], wx) + bias, 3, axis=1)
                hr, hz, hn = tf.split(tf.matmul(h, wh), 3, axis=1)
                rg = tf.sigmoid(xr + hr)
                u = tf.sigmoid(xz + hz)
                h = u * h + (1.0 - u) * tf.tanh(xn + rg * hn)
            loss = tf.reduce_sum(h * h)
        return [loss] + tape.gradient(loss, [wx, wh, bias])

    _close(tf.function(lambda xs: run(xs, tf.range(6)))(xs), run(xs, range(6)))


def test_multi_output_and_integer_intermediates():
    # top_k's gradient reads its indices output (int32): both outputs of the node are stacked.
    r = _rng(2)
    w = tf.Variable(r.normal(size=(6, 6)).astype(np.float32))

    def run(x, n_steps):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = x
            for _ in n_steps:
                v, _idx = tf.math.top_k(tf.matmul(h, w), k=6)
                h = tf.tanh(v) + h * 0.5
            loss = tf.reduce_sum(h * tf.range(1.0, 7.0))
        return [loss] + tape.gradient(loss, [x, w])

    x = tf.constant(r.normal(size=(2, 6)).astype(np.float32))
    _close(tf.function(lambda x: run(x, tf.range(4)))(x), run(x, range(4)))


def test_intermediate_of_unknown_shape():
    # The loop var grows (shape invariant [None]): the stacked sigmoid has an unknown dim.
    def run(x, looped):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            if looped:
                _, y = tf.while_loop(
                    lambda i, y: i < 3,
                    lambda i, y: (i + 1, tf.concat([y, tf.sigmoid(y * x[0])[-2:] * 2.0], 0)),
                    (0, y),
                    shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])),
                )
            else:
                for _ in range(3):
                    y = tf.concat([y, tf.sigmoid(y * x[0])[-2:] * 2.0], 0)
            loss = tf.reduce_sum(y * y)
        return [loss, tape.gradient(loss, x)]

    x = tf.constant([0.3, -0.7])
    _close(tf.function(lambda x: run(x, True))(x), run(x, False))


def test_second_order_gradient_reads_stacked_intermediates():
    # sin's gradient reads its input (y * x, an intermediate); a second gradient flows through
    # the stacks into the forward body.
    def run(x, looped):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                if looped:
                    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y * x) + tf.tanh(y)), (0, x))
                else:
                    y = x
                    for _ in range(3):
                        y = tf.sin(y * x) + tf.tanh(y)
            g = t1.gradient(y, x)
        return [y, g, t2.gradient(g, x)]

    x = tf.constant(0.7)
    _close(tf.function(lambda x: run(x, True))(x), run(x, False))


def test_loop_with_no_intermediate_read_by_the_gradient():
    # Only loop vars and captures feed the gradient rules (mul by a capture, add): nothing to stack.
    def run(x, looped):
        with tf.GradientTape() as tape:
            tape.watch(x)
            if looped:
                _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * x + 1.0), (0, tf.ones([3])))
            else:
                y = tf.ones([3])
                for _ in range(4):
                    y = y * x + 1.0
            loss = tf.reduce_sum(y)
        return [loss, tape.gradient(loss, x)]

    x = tf.constant([0.5, -1.0, 2.0])
    _close(tf.function(lambda x: run(x, True))(x), run(x, False))


@pytest.mark.fn_only
def test_backward_loop_reads_the_stacked_sigmoid_instead_of_recomputing_it():
    import re

    w = tf.Variable(np.eye(4, dtype=np.float32))

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            h = x
            for _ in tf.range(3):
                h = tf.tanh(tf.sigmoid(tf.matmul(h, w)))
            loss = tf.reduce_sum(h)
        return t.gradient(loss, w)

    text = str(f.get_concrete_function(tf.ones((2, 4))).graph.as_graph_def())
    bodies = {re.search(r'name: "([^"]*)"', b).group(1): b for b in text.split("  function {")[1:]}
    grad_body = [b for name, b in bodies.items() if name.startswith("while_grad_body")]
    assert len(grad_body) == 1
    # The sigmoid's gradient reads its output from a stack the forward loop filled.
    assert grad_body[0].count('op: "Sigmoid"') == 0
    assert grad_body[0].count('op: "TensorListGetItem"') >= 3  # h before, h after, the sigmoid


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_steps", [0, 1, 5])
def test_weight_gradients_summed_after_the_loop(dtype, n_steps):
    # A weight's gradient is a matmul over rows per iteration (h^T @ dz): fn sums it after the
    # loop as one matmul of the stacked operands. Variants: transpose_b, a weight used twice
    # (its per-iteration gradient is a sum of two matmuls), a plain tensor capture, no iteration.
    r = _rng(3)
    w1 = tf.Variable(r.normal(size=(5, 5)).astype(dtype) * 0.4)
    w2 = tf.Variable(r.normal(size=(5, 5)).astype(dtype) * 0.4)
    u = tf.constant(r.normal(size=(5, 5)).astype(dtype) * 0.4)
    xs = tf.constant(r.normal(size=(max(n_steps, 1), 3, 5)).astype(dtype))

    def run(xs, u, steps):
        with tf.GradientTape() as tape:
            tape.watch(u)
            h = tf.ones([3, 5], dtype)
            for t in steps:
                a = tf.matmul(h, w1, transpose_b=True) + tf.matmul(xs[t], u)
                h = tf.tanh(a + tf.matmul(tf.sigmoid(a), w2) + tf.matmul(h, w2))
            loss = tf.reduce_sum(h * h)
        return [loss] + tape.gradient(loss, [w1, w2, u, xs])

    looped = tf.function(lambda xs, u: run(xs, u, tf.range(n_steps)))(xs, u)
    unrolled = run(xs, u, range(n_steps))
    # No iteration: the unrolled loop has no gradient (None), the While one zeros.
    unrolled = [
        tf.zeros_like(v) if g is None and looped[k] is not None else g
        for k, (g, v) in enumerate(zip(unrolled, [None, w1, w2, u, xs]))
    ]
    _close(looped, unrolled, tol=1e-5)


@pytest.mark.parametrize("n_steps", [0, 1, 6])
def test_bias_gradients_summed_after_the_loop(n_steps):
    # A bias's gradient is a sum over the rows per iteration (sum(dz, axis 0)): fn sums it after
    # the loop over the stacked rows. Variants: the rows shared with a weight's stacked operand
    # (x @ w + b), a scale whose row sum is of a product (b2 * h), a bias of a rank-3 value (a
    # sum over two axes, summed in the loop), a capture reduced over axis 1 (not a row sum).
    r = _rng(4)
    w = tf.Variable(r.normal(size=(4, 4)).astype(np.float32) * 0.4)
    b = tf.Variable(r.normal(size=(4,)).astype(np.float32) * 0.1)
    b2 = tf.Variable(r.normal(size=(4,)).astype(np.float32) + 1.0)
    b3 = tf.Variable(r.normal(size=(4,)).astype(np.float32) * 0.1)
    c = tf.Variable(r.normal(size=(3, 1)).astype(np.float32) * 0.1)
    xs = tf.constant(r.normal(size=(max(n_steps, 1), 3, 4)).astype(np.float32))

    def run(xs, steps):
        with tf.GradientTape() as tape:
            h = tf.ones([3, 4]) * 0.5
            for t in steps:
                z = tf.matmul(h, w) + b + c
                h = tf.tanh(b2 * z + xs[t])
                q = tf.reduce_sum(tf.tanh(tf.reshape(h, [3, 2, 2]) + tf.reshape(b3, [2, 2])), axis=2)
                h = h + tf.tile(q, [1, 2]) * 0.1
            loss = tf.reduce_sum(h * h)
        return [loss] + tape.gradient(loss, [w, b, b2, b3, c])

    looped = tf.function(lambda xs: run(xs, tf.range(n_steps)))(xs)
    unrolled = run(xs, range(n_steps))
    unrolled = [
        tf.zeros_like(v) if g is None and looped[k] is not None else g
        for k, (g, v) in enumerate(zip(unrolled, [None, w, b, b2, b3, c]))
    ]
    _close(looped, unrolled, tol=1e-5)


@pytest.mark.fn_only
def test_bias_gradient_is_one_sum_after_the_loop():
    w = tf.Variable(np.eye(4, dtype=np.float32))
    b = tf.Variable(np.ones(4, dtype=np.float32))

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            h = x
            for _ in tf.range(3):
                h = tf.tanh(tf.matmul(h, w) + b)
            loss = tf.reduce_mean(h * h)
        return t.gradient(loss, [w, b])

    text = str(f.get_concrete_function(tf.ones((2, 4))).graph.as_graph_def())
    outer = text.split("  function {")[0]
    # b's gradient: one Sum over the stacked rows of dz (the stack w's gradient matmul reads).
    assert outer.count('op: "Sum"') == 1
    assert outer.count('op: "TensorListStack"') == 2
