"""Items written into a TensorArray of known size inside a loop: fn's executor lets the op that
makes an item write it straight into the list's row (exec/plan.cpp run_placed,
ops/tensor_list.cpp arena_row_placement) instead of copying it there at the write. What a
program can see must not change: items read by other ops before or after the write, the same
item written into two lists, nested loops, loops of 0 and 1 iterations, odd shapes and dtypes,
items of another shape with the same byte size, and the While gradient (whose stacked operands
are such lists).

Expected values are computed with NumPy from the same inputs (or, for gradients, by the same
program unrolled without a loop), in fn and under TensorFlow.
"""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _x(shape, seed=0, dtype=np.float32):
    r = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return r.integers(-50, 50, size=shape).astype(dtype)
    return r.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("shape", [(3, 5), (1, 7), (16, 16), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_items_made_by_elementwise_and_concat_stack_exactly(shape, dtype):
    x = _x(shape, dtype=dtype)
    tdt = tf.as_dtype(dtype)

    @tf.function
    def f(x):
        a = tf.TensorArray(tdt, size=6)
        b = tf.TensorArray(tdt, size=6)
        for i in tf.range(6):
            k = tf.cast(i, tdt)
            a = a.write(i, x * k + k)
            b = b.write(i, tf.concat([x, x - k], axis=-1))
        return a.stack(), b.stack()

    sa, sb = (t.numpy() for t in f(tf.constant(x)))
    ks = [np.asarray(i, dtype) for i in range(6)]
    np.testing.assert_array_equal(sa, np.stack([x * k + k for k in ks]))
    np.testing.assert_array_equal(sb, np.stack([np.concatenate([x, x - k], axis=-1) for k in ks]))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_loops_of_few_iterations(n):
    x, w = _x((3, 4), seed=1), _x((4, 4), seed=2)

    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=n, element_shape=[3, 4])
        h = x
        for i in tf.range(n):
            h = tf.matmul(h, w)
            ta = ta.write(i, h)
        return ta.stack(), h

    stacked, last = (t.numpy() for t in f(tf.constant(x), tf.constant(n)))
    want, h = [], x.astype(np.float64)
    for _ in range(n):
        h = h @ w
        want.append(h)
    assert stacked.shape == (n, 3, 4)
    if n:
        np.testing.assert_allclose(stacked, np.stack(want), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(last, h, rtol=1e-4, atol=1e-5)


def test_item_also_read_before_and_after_the_write_and_written_twice():
    """The item is carried to the next iteration, read by ops before and after its write, and
    written into two lists: every reader sees the value it had when it was made."""
    x, w = _x((5, 3), seed=3), _x((3, 3), seed=4) * 0.5

    @tf.function
    def f(x):
        a = tf.TensorArray(tf.float32, size=4)
        b = tf.TensorArray(tf.float32, size=4)
        h, before, after = x, tf.zeros([5, 3]), tf.zeros([5, 3])
        for i in tf.range(4):
            h = tf.tanh(tf.matmul(h, w) + x)
            before = before + h * 2.0
            a = a.write(i, h)
            after = after + h * 3.0
            b = b.write(3 - i, h)
        return a.stack(), b.stack(), h, before, after

    sa, sb, last, before, after = (t.numpy() for t in f(tf.constant(x)))
    hs, h = [], x.astype(np.float64)
    for _ in range(4):
        h = np.tanh(h @ w + x)
        hs.append(h)
    np.testing.assert_allclose(sa, np.stack(hs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sb, np.stack(hs[::-1]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last, hs[-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(before, 2 * sum(hs), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(after, 3 * sum(hs), rtol=1e-5, atol=1e-5)


def test_rewriting_a_row_after_a_read_keeps_the_read_value():
    x = _x((2, 6), seed=5)

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x + tf.cast(i, tf.float32))
        kept = ta.read(1)
        stacked = ta.stack()
        ta2 = ta.write(1, x * 10.0)  # the row was written once: this write must not touch it
        return kept, stacked, ta2.stack(), ta.read(1)

    kept, stacked, stacked2, again = (t.numpy() for t in f(tf.constant(x)))
    want = np.stack([x + i for i in range(3)])
    np.testing.assert_array_equal(kept, x + 1)
    np.testing.assert_array_equal(again, x + 1)
    np.testing.assert_array_equal(stacked, want)
    want[1] = x * 10.0
    np.testing.assert_array_equal(stacked2, want)


def test_nested_loops():
    x = _x((2, 3), seed=6)

    @tf.function
    def f(x):
        outer = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            inner = tf.TensorArray(tf.float32, size=4)
            for j in tf.range(4):
                inner = inner.write(j, x * tf.cast(i * 4 + j, tf.float32))
            outer = outer.write(i, inner.stack() + 1.0)
        return outer.stack()

    got = f(tf.constant(x)).numpy()
    want = np.stack([np.stack([x * (i * 4 + j) for j in range(4)]) + 1.0 for i in range(3)])
    np.testing.assert_array_equal(got, want)


def test_items_of_another_shape_with_the_same_size():
    """Rows are shaped by the first write; an item of shape (3, 2) has the bytes of a (2, 3) row
    (and the loop cannot tell them apart before running): it must keep its own shape."""
    x = _x((2, 3), seed=7)

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=4, infer_shape=False)
        for i in tf.range(4):
            k = tf.cast(i, tf.float32)
            item = tf.cond(i % 2 == 0, lambda k=k: x * k, lambda k=k: tf.transpose(x) * k)
            ta = ta.write(i, item)
        return [ta.read(i) for i in range(4)]

    got = [t.numpy() for t in f(tf.constant(x))]
    for i in range(4):
        want = x * i if i % 2 == 0 else x.T * i
        np.testing.assert_array_equal(got[i], want)


def _gru(xs, wx, wh, b, h):
    """One GRU step as the benchmarks write it (split gates, sigmoid, tanh)."""
    xr, xz, xn = tf.split(tf.matmul(xs, wx) + b, 3, axis=1)
    hr, hz, hn = tf.split(tf.matmul(h, wh), 3, axis=1)
    r = tf.sigmoid(xr + hr)
    u = tf.sigmoid(xz + hz)
    return u * h + (1.0 - u) * tf.tanh(xn + r * hn)


@pytest.mark.parametrize("steps", [1, 4])
def test_gru_loop_gradient_matches_the_unrolled_program(steps):
    """The While gradient's weight gradients come from lists stacked after the backward loop
    (ops/while_grad.cpp): the same as the gradient of the loop unrolled in Python."""
    bsz, nin, hid = 3, 5, 7
    xs = _x((steps, bsz, nin), seed=8)
    y = _x((bsz, hid), seed=9)
    wx0, wh0, b0 = _x((nin, 3 * hid), seed=10) * 0.4, _x((hid, 3 * hid), seed=11) * 0.4, _x((3 * hid,), seed=12)
    wx, wh, b = tf.Variable(wx0), tf.Variable(wh0), tf.Variable(b0)

    def loss_of(h):
        return tf.reduce_mean(tf.square(h - y))

    @tf.function
    def looped(xs):
        with tf.GradientTape() as tape:
            h = tf.zeros([bsz, hid])
            for t in tf.range(steps):
                h = _gru(xs[t], wx, wh, b, h)
            loss = loss_of(h)
        return [loss] + tape.gradient(loss, [wx, wh, b])

    @tf.function
    def unrolled(xs):
        with tf.GradientTape() as tape:
            h = tf.zeros([bsz, hid])
            for t in range(steps):
                h = _gru(xs[t], wx, wh, b, h)
            loss = loss_of(h)
        return [loss] + tape.gradient(loss, [wx, wh, b])

    xs_t = tf.constant(xs)
    for _ in range(2):  # the second call runs with the lists' rows of the first returned
        got = [t.numpy() for t in looped(xs_t)]
        want = [t.numpy() for t in unrolled(xs_t)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_item_read_by_another_op_before_its_write_and_matmul_items():
    """The write is the item's last use but another op read it first; a matmul makes items."""
    x, w = _x((4, 6), seed=13), _x((6, 6), seed=14)

    @tf.function
    def f(x):
        a = tf.TensorArray(tf.float32, size=5)
        m = tf.TensorArray(tf.float32, size=5)
        acc = tf.zeros([4, 6])
        for i in tf.range(5):
            k = tf.cast(i, tf.float32)
            item = tf.matmul(tf.tanh(x * k), w)
            acc = acc + tf.matmul(item, w)
            a = a.write(i, item)
            m = m.write(i, tf.matmul(x * k, w))
        return a.stack(), m.stack(), acc

    sa, sm, acc = (t.numpy() for t in f(tf.constant(x)))
    items = [np.tanh(x * np.float32(i)) @ w for i in range(5)]
    np.testing.assert_allclose(sa, np.stack(items), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(acc, sum(it @ w for it in items), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(sm, np.stack([(x * i) @ w for i in range(5)]), rtol=1e-4, atol=1e-4)


def test_item_of_a_run_time_shape_with_the_row_size():
    """One kernel (a transpose by a permutation known only at run time) makes (2, 3) and (3, 2)
    items: the (3, 2) ones have a (2, 3) row's byte size and must keep their own shape."""
    x = _x((2, 3), seed=15)

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=4, infer_shape=False)
        for i in tf.range(4):
            perm = tf.where(i % 2 == 0, tf.constant([0, 1]), tf.constant([1, 0]))
            ta = ta.write(i, tf.transpose(x + tf.cast(i, tf.float32), perm))
        return [ta.read(i) for i in range(4)]

    got = [t.numpy() for t in f(tf.constant(x))]
    for i in range(4):
        want = x + i if i % 2 == 0 else (x + i).T
        np.testing.assert_array_equal(got[i], want)
