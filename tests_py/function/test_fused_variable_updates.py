"""`v.assign_sub(expr)` / `v.assign_add(expr)` of an elementwise value in a function: fn
splits the update into read, Sub/AddV2 and assign so its arithmetic joins the value's fused tree
(passes/split_assign_update.cpp). The variables hold the same bits as the same updates made
eagerly, the update stays ordered with the reads and writes around it, and a wrongly shaped or
typed update fails as TF's update op does."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def adam_like(tf_fn, shapes, steps):
    """Hand-written Adam over variables of `shapes` (as benchmarks/models_tf_train.py), eagerly
    or under `tf_fn`; returns the parameters, slots and per-step losses."""
    rng = np.random.default_rng(len(shapes) * 7 + steps)
    ps = [tf.Variable(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    ms = [tf.Variable(tf.zeros_like(p)) for p in ps]
    vs = [tf.Variable(tf.zeros_like(p)) for p in ps]
    t = tf.Variable(0.0)
    b1, b2, eps = 0.9, 0.999, 1e-7

    def step():
        with tf.GradientTape() as tape:
            loss = tf.add_n([tf.reduce_sum(tf.tanh(p) * p) for p in ps])
        grads = tape.gradient(loss, ps)
        t.assign_add(1.0)
        lr_t = 1e-2 * tf.sqrt(1.0 - tf.pow(b2, t)) / (1.0 - tf.pow(b1, t))
        for p, g, m_, v_ in zip(ps, grads, ms, vs):
            m_.assign(b1 * m_ + (1.0 - b1) * g)
            v_.assign(b2 * v_ + (1.0 - b2) * tf.square(g))
            p.assign_sub(lr_t * m_ / (tf.sqrt(v_) + eps))
        return loss

    run = tf_fn(step) if tf_fn else step
    losses = [float(run()) for _ in range(steps)]
    return [p.numpy() for p in ps + ms + vs], losses


@pytest.mark.parametrize("shapes", [[(3,)], [(1,), (4, 5), (130, 70)]])
def test_adam_updates_in_a_function_match_eager(shapes):
    got, got_losses = adam_like(tf.function, shapes, 4)
    want, want_losses = adam_like(None, shapes, 4)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-6)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_assign_add_and_sub_are_ordered_with_reads_around_them():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((37, 19)).astype(np.float32)
    v = tf.Variable(np.ones((37, 19), np.float32))

    @tf.function
    def f(x):
        before = v.read_value() * 1.0
        v.assign_add(tf.exp(x) * 0.5)
        middle = v.read_value() + 0.0
        v.assign_sub(x * x)
        after = tf.identity(v)
        return before, middle, after

    before, middle, after = (a.numpy() for a in f(tf.constant(x)))
    one = np.ones_like(x)
    np.testing.assert_array_equal(before, one)
    want_middle = (tf.constant(one) + tf.exp(tf.constant(x)) * 0.5).numpy()
    np.testing.assert_array_equal(middle, want_middle)
    np.testing.assert_array_equal(after, (tf.constant(want_middle) - tf.constant(x) * tf.constant(x)).numpy())
    np.testing.assert_array_equal(v.numpy(), after)


def test_value_an_update_returns_is_the_updated_variable():
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        return v.assign_sub(x * 2.0) + 1.0

    np.testing.assert_array_equal(f(tf.constant([1.0, 1.0, 1.0])).numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [-1.0, 0.0, 1.0])


def test_update_of_a_wrong_shape_fails_as_tf():
    v = tf.Variable([1.0, 2.0, 3.0])
    _ = v.read_value()

    @tf.function
    def f(x):
        v.read_value()
        v.assign_sub(x * 2.0)
        return v.read_value()

    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        f(tf.constant([1.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_update_of_a_scalar_value_does_not_broadcast():
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        v.assign_add(tf.reshape(x * 2.0, [3]))
        return v.read_value()

    np.testing.assert_array_equal(f(tf.constant([[1.0, 2.0, 3.0]])).numpy(), [3.0, 6.0, 9.0])
