"""Inter-op parallelism (cpp/exec/plan_parallel.cpp): a plan's independent steps run on the
caller and a worker thread. Behaviour tests (checked against TF): stateful ops keep their program
order beside parallel branches, errors surface as TF's. fn-only tests: results are the sequential
run's bits (fn._core.set_inter_op toggles the executor in-process), the first error in program
order is raised, small plans stay sequential."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(7)
X = RNG.standard_normal((128, 512)).astype(np.float32)
W = (RNG.standard_normal((512, 64)) * 0.05).astype(np.float32)


def branches(x, w):
    """Twelve independent branches (elementwise chains, reductions, matmuls) joined at the end."""
    outs = []
    for i in range(12):
        a = tf.tanh(x * (0.5 + 0.1 * i))
        b = tf.exp(a) - a
        outs.append(tf.reduce_sum(b, axis=1) + tf.reduce_sum(tf.matmul(b, w), axis=1))
    return tf.add_n(outs), outs[5]


def branches_np(x, w):
    outs = []
    for i in range(12):
        a = np.tanh(x * np.float32(0.5 + 0.1 * i))
        b = np.exp(a) - a
        outs.append(b.sum(axis=1) + (b @ w).sum(axis=1))
    return np.sum(outs, axis=0), outs[5]


def test_independent_branches_compute_what_tf_computes():
    f = tf.function(branches)
    total, five = f(tf.constant(X), tf.constant(W))
    ref_total, ref_five = branches_np(X.astype(np.float64), W.astype(np.float64))
    np.testing.assert_allclose(total.numpy(), ref_total, rtol=2e-4, atol=2e-3)
    np.testing.assert_allclose(five.numpy(), ref_five, rtol=2e-4, atol=2e-4)


def test_variable_writes_and_reads_keep_program_order_beside_parallel_branches():
    v = tf.Variable(np.zeros((128, 512), np.float32))
    u = tf.Variable(np.ones((128, 512), np.float32))

    @tf.function
    def step(x):
        side = [tf.reduce_sum(tf.tanh(x * float(i))) for i in range(1, 7)]
        v.assign(x * 2.0)
        seen = v.read_value()  # after the assign
        u.assign_add(seen)
        v.assign(seen + 1.0)
        return tf.add_n(side), seen, u.read_value(), v.read_value()

    x = tf.constant(X)
    expected_u = np.ones((128, 512), np.float32)
    for _ in range(3):
        _, seen, uu, vv = step(x)
        expected_u = expected_u + X * np.float32(2.0)
        np.testing.assert_array_equal(seen.numpy(), X * 2.0)
        np.testing.assert_array_equal(uu.numpy(), expected_u)
        np.testing.assert_array_equal(vv.numpy(), X * 2.0 + 1.0)


def test_a_failing_branch_raises_tfs_error():
    @tf.function
    def f(x, shape):
        side = [tf.reduce_sum(tf.tanh(x * float(i))) for i in range(1, 7)]
        bad = tf.reduce_sum(tf.reshape(x, shape))
        return tf.add_n(side) + bad

    with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape is a tensor with 65536 values"):
        f(tf.constant(X), tf.constant([3, 5]))
    assert f(tf.constant(X), tf.constant([512, 128])).shape == []


def _core():
    from fn import _core as core

    return core


def _with_inter_op(on, fn_call):
    core = _core()
    before = core.inter_op()
    core.set_inter_op(on)
    try:
        return fn_call()
    finally:
        core.set_inter_op(before)


@pytest.mark.fn_only
def test_parallel_runs_give_the_sequential_bits():
    f = tf.function(branches)
    x, w = tf.constant(X), tf.constant(W)
    assert f.get_concrete_function(x, w)._core.plan_parallel()
    ref = [t.numpy() for t in _with_inter_op(False, lambda: f(x, w))]
    for _ in range(30):
        out = [t.numpy() for t in _with_inter_op(True, lambda: f(x, w))]
        for a, b in zip(out, ref):
            np.testing.assert_array_equal(a, b)


@pytest.mark.fn_only
def test_training_steps_give_the_sequential_bits():
    """A tape + SGD step over several variables: gradients of independent layers in parallel."""

    def train(steps, on):
        ws = [tf.Variable(RNG_W[i]) for i in range(4)]

        @tf.function
        def step(x):
            with tf.GradientTape() as tape:
                h = x
                for w in ws:
                    h = tf.tanh(tf.matmul(h, w))
                loss = tf.reduce_mean(h * h)
            grads = tape.gradient(loss, ws)
            for w, g in zip(ws, grads):
                w.assign_sub(0.1 * g)
            return loss

        losses = [_with_inter_op(on, lambda: step(tf.constant(X)).numpy()) for _ in range(steps)]
        return losses, [w.numpy() for w in ws]

    seq_losses, seq_ws = train(4, False)
    par_losses, par_ws = train(4, True)
    assert seq_losses == par_losses
    for a, b in zip(par_ws, seq_ws):
        np.testing.assert_array_equal(a, b)


RNG_W = [(np.random.default_rng(i).standard_normal((512, 512)) * 0.04).astype(np.float32) for i in range(4)]


@pytest.mark.fn_only
def test_the_first_error_in_program_order_is_raised():
    @tf.function
    def f(x, s1, s2):
        side = [tf.reduce_sum(tf.tanh(x * float(i))) for i in range(1, 7)]
        first = tf.reduce_sum(tf.reshape(tf.exp(x), s1, name="first_reshape"))
        second = tf.reduce_sum(tf.reshape(x, s2, name="second_reshape"))
        return tf.add_n(side) + first + second

    x, bad = tf.constant(X), tf.constant([3, 5])

    def message(on):
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _with_inter_op(on, lambda: f(x, bad, bad))
        return str(e.value)

    expected = message(False)
    assert "first_reshape" in expected
    for _ in range(20):
        assert message(True) == expected


@pytest.mark.fn_only
def test_small_plans_run_in_order():
    f = tf.function(lambda x: tf.tanh(x * 2.0) + tf.sin(x) * tf.cos(x))
    assert not f.get_concrete_function(tf.constant(np.ones(1000, np.float32)))._core.plan_parallel()
