"""`xs[t]` by a scalar tensor index: TF traces it as StridedSlice(xs, stack([t]), stack([t + 1]),
[1]) with shrink_axis_mask 1; fn's execution copy reads the row directly
(passes/fold_index_slice.cpp, `_StridedSliceIndex`) instead of building the two stacks each
iteration. What a program sees must not change: values for int32 and int64 indices, negative
indices counting from the end, every dtype and rank, indices computed in the loop, gradients
through the loop, and TF's error (its text and the node it names) for an index out of bounds.

Expected values come from NumPy on the same inputs; error texts are TF 2.21's (the test runs
under TF too).
"""

import re

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _x(shape, dtype=np.float32, seed=0):
    r = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return r.integers(-50, 50, size=shape).astype(dtype)
    return r.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("shape", [(5,), (4, 3), (6, 2, 3), (3, 1, 1, 7)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_loop_reads_each_row(index_dtype, shape, dtype):
    xs = _x(shape, dtype)

    @tf.function
    def f(xs):
        acc = tf.zeros(shape[1:], xs.dtype)
        for t in tf.range(shape[0], dtype=getattr(tf, index_dtype)):
            acc = acc * 2 + xs[t]
        return acc

    want = np.zeros(shape[1:], dtype)
    for t in range(shape[0]):
        want = want * 2 + xs[t]
    np.testing.assert_array_equal(f(tf.constant(xs)).numpy(), want)


def test_negative_and_computed_indices():
    xs = _x((6, 4))

    @tf.function
    def f(xs):
        acc = tf.zeros([4])
        for t in tf.range(6):
            acc += xs[-1 - t] * tf.cast(t, tf.float32) + xs[(t * 5) % 6] + xs[t - 6]
        return acc

    want = sum(xs[-1 - t] * t + xs[(t * 5) % 6] + xs[t - 6] for t in range(6))
    np.testing.assert_allclose(f(tf.constant(xs)).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("i", [0, 2, -1, -3])
def test_scalar_argument_index(i):
    xs = _x((3, 2, 5))

    @tf.function
    def f(xs, i):
        return xs[i] * 2.0

    np.testing.assert_array_equal(f(tf.constant(xs), tf.constant(i)).numpy(), xs[i] * 2.0)
    np.testing.assert_array_equal(f(tf.constant(xs), tf.constant(i, tf.int64)).numpy(), xs[i] * 2.0)


def test_rows_are_not_aliased_with_later_writes():
    # The row read in one iteration is a view of xs; a value built from it and carried on must keep
    # its numbers when xs's other rows are read later.
    xs = _x((5, 3))

    @tf.function
    def f(xs):
        ta = tf.TensorArray(tf.float32, size=5)
        for t in tf.range(5):
            ta = ta.write(t, xs[t])
        return ta.stack(), xs[4] + 0.0

    stacked, last = f(tf.constant(xs))
    np.testing.assert_array_equal(stacked.numpy(), xs)
    np.testing.assert_array_equal(last.numpy(), xs[4])


def test_gradient_through_the_loop():
    xs = _x((7, 4, 3), seed=1)
    w = _x((3, 3), seed=2)

    @tf.function
    def f(xs, w):
        with tf.GradientTape() as tape:
            tape.watch([xs, w])
            s = tf.zeros([4, 3])
            for t in tf.range(7):
                s = tf.tanh(xs[t] + tf.matmul(s, w))
            loss = tf.reduce_sum(s * s)
        return tape.gradient(loss, [xs, w])

    def unrolled(xs, w):
        with tf.GradientTape() as tape:
            tape.watch([xs, w])
            s = tf.zeros([4, 3])
            for t in range(7):
                s = tf.tanh(xs[t] + tf.matmul(s, w))
            loss = tf.reduce_sum(s * s)
        return tape.gradient(loss, [xs, w])

    got = f(tf.constant(xs), tf.constant(w))
    want = unrolled(tf.constant(xs), tf.constant(w))
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_strings_and_bools_index_too():
    words = np.array([b"a", b"bc", b"def"])
    flags = np.array([[True, False], [False, True], [True, True]])

    @tf.function
    def f(words, flags):
        out = tf.constant(b"")
        n = tf.constant(0)
        for t in tf.range(3):
            out = out + words[t]
            n += tf.reduce_sum(tf.cast(flags[t], tf.int32))
        return out, n

    out, n = f(tf.constant(words), tf.constant(flags))
    assert out.numpy() == b"abcdef"
    assert n.numpy() == 4


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_batch_major_columns(index_dtype):
    # x[:, t] and x[:, :, t]: begin and end stacked from [0, t] and [0, t + 1] under masks.
    x = _x((4, 6, 3, 5))

    @tf.function
    def f(x):
        a = tf.zeros([4, 3, 5])
        b = tf.zeros([4, 6, 5])
        for t in tf.range(6, dtype=getattr(tf, index_dtype)):
            a = a * 0.5 + x[:, t]
        for t in tf.range(3, dtype=getattr(tf, index_dtype)):
            b = b + x[:, :, t] * 2.0 + x[:, :, -1 - t, :]
        return a, b

    want_a = np.zeros([4, 3, 5], np.float32)
    for t in range(6):
        want_a = want_a * 0.5 + x[:, t]
    want_b = np.zeros([4, 6, 5], np.float32)
    for t in range(3):
        want_b = want_b + x[:, :, t] * np.float32(2.0) + x[:, :, -1 - t, :]
    a, b = f(tf.constant(x))
    np.testing.assert_allclose(a.numpy(), want_a, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-6, atol=1e-5)  # TF may reassociate


def test_batch_major_out_of_bounds_is_tfs_error():
    x = tf.constant(_x((2, 3, 4)))

    @tf.function
    def f(x):
        acc = tf.zeros([2, 4])
        for t in tf.range(4):
            acc += x[:, t]
        return acc

    text = _graph_error(f, x)
    assert text.endswith(
        "slice index 3 of dimension 1 out of bounds.\n\t [[{{node while/strided_slice}}]] [Op:__inference_f_N]"
    )


def _graph_error(fn_, *args):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        fn_(*args)
    return re.sub(r"__inference_(\w+?)_\d+", r"__inference_\1_N", str(e.value))


def test_out_of_bounds_in_a_loop_is_tfs_error():
    xs = tf.constant(_x((4, 3)))

    @tf.function
    def f(xs):
        acc = tf.zeros([3])
        for t in tf.range(5):
            acc += xs[t]
        return acc

    text = _graph_error(f, xs)
    assert text.startswith("Graph execution error:\n\nDetected at node while/strided_slice defined at")
    assert text.endswith(
        "slice index 4 of dimension 0 out of bounds.\n\t [[{{node while/strided_slice}}]] [Op:__inference_f_N]"
    )


@pytest.mark.parametrize(("i", "shown"), [(7, 7), (-5, -2), (3, 3)])
def test_out_of_bounds_argument_index_is_tfs_error(i, shown):
    xs = tf.constant(_x((3, 2)))

    @tf.function
    def f(xs, i):
        return xs[i]

    text = _graph_error(f, xs, tf.constant(i, tf.int64))
    assert text.endswith(
        f"slice index {shown} of dimension 0 out of bounds.\n\t [[{{{{node strided_slice}}}}]] [Op:__inference_f_N]"
    )


def test_out_of_bounds_on_an_empty_axis():
    @tf.function
    def f(xs, i):
        return xs[i]

    text = _graph_error(f, tf.zeros([0, 2]), tf.constant(0))
    assert "slice index 0 of dimension 0 out of bounds." in text
