"""Optimizer steps written with `assign` / `assign_sub` in a function: fn forwards an assigned
value to the reads of the variable that follow and moves the assign after the tree reading it
(passes/fuse_updates.cpp), so a variable's slot and parameter updates are one fused pass. The
variables hold what TF's function computes (eager as the oracle), bit-equal to the unfused plan
(FN_FUSE_UPDATES=0), and reads and writes between updates still see program order."""

import os

import numpy as np
import pytest

from tfbackend import tf, IS_TF

pytestmark = pytest.mark.tf_oracle

SHAPES = [(3,), (4, 5), (130, 70), ()]


def _adam(p, g, m, v, t):
    m.assign(0.9 * m + (1.0 - 0.9) * g)
    v.assign(0.999 * v + (1.0 - 0.999) * tf.square(g))
    lr_t = 1e-2 * tf.sqrt(1.0 - tf.pow(tf.cast(0.999, p.dtype), t)) / (1.0 - tf.pow(tf.cast(0.9, p.dtype), t))
    p.assign_sub(lr_t * m / (tf.sqrt(v) + 1e-7))


def _adamw(p, g, m, v, t):
    p.assign_sub(p * 4e-3)  # decoupled weight decay first, as Keras' AdamW
    _adam(p, g, m, v, t)


def _rmsprop(p, g, m, v, t):
    v.assign(0.9 * v + 0.1 * tf.square(g))
    m.assign(0.5 * m + 1e-2 * g / tf.sqrt(v + 1e-7))  # with momentum
    p.assign_sub(m)


def _momentum(p, g, m, v, t):
    m.assign(0.9 * m - 1e-2 * g)
    p.assign_add(m)


def _adagrad(p, g, m, v, t):
    v.assign_add(tf.square(g))
    p.assign_sub(1e-2 * g / (tf.sqrt(v) + 1e-7))


RULES = {"adam": _adam, "adamw": _adamw, "rmsprop": _rmsprop, "momentum": _momentum, "adagrad": _adagrad}


def train(rule, dtype, steps, use_function=True):
    """`steps` steps of `rule` over variables of SHAPES in `dtype`; returns every variable's value
    and the losses."""
    rng = np.random.default_rng(11)
    ps = [tf.Variable(rng.standard_normal(s).astype(dtype)) for s in SHAPES]
    ms = [tf.Variable(tf.zeros_like(p)) for p in ps]
    vs = [tf.Variable(tf.zeros_like(p)) for p in ps]
    t = tf.Variable(np.asarray(0.0, dtype))

    def step():
        with tf.GradientTape() as tape:
            loss = tf.add_n([tf.reduce_sum(tf.tanh(p) * p) for p in ps])
        grads = tape.gradient(loss, ps)
        t.assign_add(tf.cast(1.0, dtype))
        for p, g, m, v in zip(ps, grads, ms, vs):
            RULES[rule](p, g, m, v, t)
        return loss

    run = tf.function(step) if use_function else step
    losses = [run().numpy() for _ in range(steps)]
    return [x.numpy() for x in ps + ms + vs], losses


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_optimizer_step_in_a_function_matches_eager(rule, dtype):
    got, got_losses = train(rule, dtype, 3)
    want, want_losses = train(rule, dtype, 3, use_function=False)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got_losses, want_losses, rtol=tol)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_not_fusable_dtype_keeps_working():
    got, _ = train("momentum", np.float16, 2)
    want, _ = train("momentum", np.float16, 2, use_function=False)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32), rtol=1e-2, atol=1e-3)


@pytest.fixture
def unfused():
    """Runs the block with FN_FUSE_UPDATES=0 (variable updates left unfused)."""

    class Knob:
        def __enter__(self):
            os.environ["FN_FUSE_UPDATES"] = "0"

        def __exit__(self, *exc):
            del os.environ["FN_FUSE_UPDATES"]

    return Knob()


@pytest.mark.skipif(IS_TF, reason="fn's fusion knob")
@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_updates_are_bit_equal_to_unfused(rule, dtype, unfused):
    fused, fused_losses = train(rule, dtype, 3)
    with unfused:
        plain, plain_losses = train(rule, dtype, 3)
    np.testing.assert_array_equal(fused_losses, plain_losses)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def _plan_ops(rule, shapes):
    rng = np.random.default_rng(5)
    ps = [tf.Variable(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    gs = [tf.constant(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    ms = [tf.Variable(tf.zeros_like(p)) for p in ps]
    vs = [tf.Variable(tf.ones_like(p)) for p in ps]
    t = tf.Variable(1.0)

    @tf.function
    def step():
        loss = tf.add_n([tf.reduce_sum(p) for p in ps])  # (reads p: its shape is known)
        for p, g, m, v in zip(ps, gs, ms, vs):
            RULES[rule](p, g, m, v, t)
        return loss

    step()
    return step.get_concrete_function()._core.plan_step_ops()


@pytest.mark.skipif(IS_TF, reason="fn's plan")
@pytest.mark.parametrize("rule", ["adam", "rmsprop", "momentum", "adagrad"])
def test_each_variable_update_is_one_fused_pass(rule, unfused):
    shapes = [(7,), (16, 9), (3, 4, 5)]
    ops = _plan_ops(rule, shapes)
    with unfused:
        before = _plan_ops(rule, shapes)
    slots = {"adam": 2, "rmsprop": 2, "momentum": 1, "adagrad": 1}[rule]

    def passes(plan):  # kernels passing over a variable's data
        return sum(plan.count(op) for op in ("_FusedElementwise", "AssignAddVariableOp", "AssignSubVariableOp"))

    # One pass per variable instead of one per assign; the writes all stay, reads of m, v go.
    assert passes(before) - passes(ops) == slots * len(shapes)
    scalars = len(shapes) if rule == "adam" else 0  # _adam's learning rate, a scalar tree a call
    assert passes(ops) == len(shapes) + scalars
    assert ops.count("AssignVariableOp") == (slots + 1) * len(shapes)
    assert ops.count("ReadVariableOp") <= before.count("ReadVariableOp")


def test_reads_between_updates_see_program_order():
    rng = np.random.default_rng(2)
    g = tf.constant(rng.standard_normal((6, 5)).astype(np.float32))
    p = tf.Variable(rng.standard_normal((6, 5)).astype(np.float32))
    m = tf.Variable(np.ones((6, 5), np.float32))

    def step(g):
        before = m.read_value() * 1.0
        m.assign(0.5 * m + g)
        mid = m.read_value() * 2.0
        m.assign(m * 3.0 - g)  # a second write of m before p reads it
        p_before = tf.identity(p)
        p.assign_sub(0.1 * m)
        m.assign_add(p * 0.0 + 1.0)  # m written after p's update read it
        return before, mid, p_before, tf.identity(p), m.read_value()

    p0 = p.numpy()
    got = [x.numpy() for x in tf.function(step)(g)]
    p.assign(p0)
    m.assign(np.ones((6, 5), np.float32))
    want = [x.numpy() for x in step(g)]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_update_read_inside_a_cond_between_assigns():
    p = tf.Variable(np.arange(6, dtype=np.float32))
    m = tf.Variable(np.ones(6, np.float32))

    @tf.function
    def step(flag):
        m.assign(m * 0.5 + 1.0)
        seen = tf.cond(flag, lambda: m.read_value() * 2.0, lambda: p.read_value())
        m.assign(m + seen)
        p.assign_sub(m * 0.25)
        return seen

    seen = step(tf.constant(True)).numpy()
    m1 = np.ones(6, np.float32) * np.float32(0.5) + np.float32(1.0)
    np.testing.assert_array_equal(seen, m1 * np.float32(2.0))
    m2 = m1 + seen
    np.testing.assert_array_equal(m.numpy(), m2)
    np.testing.assert_array_equal(p.numpy(), np.arange(6, dtype=np.float32) - m2 * np.float32(0.25))


def test_same_variable_passed_twice():
    a = tf.Variable(np.zeros(4, np.float32))

    @tf.function
    def f(x, y, d):
        x.assign(d + 1.0)
        y.assign(d * 3.0)
        return x.read_value() + 0.0

    d = tf.constant([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(f(a, a, d).numpy(), [3.0, 6.0, 9.0, 12.0])
    np.testing.assert_array_equal(a.numpy(), [3.0, 6.0, 9.0, 12.0])


def test_assign_of_a_wrong_shape_still_fails():
    p = tf.Variable(np.zeros(3, np.float32))
    m = tf.Variable(np.zeros(3, np.float32))

    @tf.function
    def f(x):
        m.assign(x * 2.0)
        p.assign_sub(m * 0.5)
        return p.read_value()

    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        f(tf.constant([1.0, 2.0]))


def keras_train(make_opt, steps):
    """`steps` Keras-optimizer steps (apply_gradients in a function) over a small seeded MLP."""
    rng = np.random.default_rng(7)
    ws = [tf.Variable(rng.standard_normal(s).astype(np.float32)) for s in [(6, 8), (8,), (8, 3), (3,)]]
    x = tf.constant(rng.standard_normal((5, 6)).astype(np.float32))
    opt = make_opt()

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, ws[0]) + ws[1])
            loss = tf.reduce_mean(tf.square(tf.matmul(h, ws[2]) + ws[3]))
        opt.apply_gradients(zip(tape.gradient(loss, ws), ws))
        return loss

    losses = [step().numpy() for _ in range(steps)]
    return [w.numpy() for w in ws], losses


KERAS_OPTS = {
    "adam": lambda: tf.keras.optimizers.Adam(1e-2),
    "adamw": lambda: tf.keras.optimizers.AdamW(1e-2),
    "sgd_momentum": lambda: tf.keras.optimizers.SGD(1e-2, momentum=0.9),
    "rmsprop": lambda: tf.keras.optimizers.RMSprop(1e-2),
    "adagrad": lambda: tf.keras.optimizers.Adagrad(1e-1),
}


@pytest.mark.skipif(IS_TF, reason="fn's fusion knob")
@pytest.mark.parametrize("name", sorted(KERAS_OPTS))
def test_keras_optimizers_fused_bit_equal_to_unfused(name, unfused):
    fused, fused_losses = keras_train(KERAS_OPTS[name], 3)
    with unfused:
        plain, plain_losses = keras_train(KERAS_OPTS[name], 3)
    np.testing.assert_array_equal(fused_losses, plain_losses)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("flag", [True, False])
def test_write_inside_a_cond_between_assign_and_read(flag):
    p = tf.Variable(np.arange(5, dtype=np.float32))
    m = tf.Variable(np.ones(5, np.float32))

    @tf.function
    def step(flag, g):
        m.assign(m * 0.5 + g)

        def bump():
            m.assign_add(g * 10.0)
            return tf.constant(1.0)

        tf.cond(flag, bump, lambda: tf.constant(0.0))
        p.assign_sub(m * 0.25)  # reads m after the branch's write
        return m.read_value()

    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    got_m = step(tf.constant(flag), tf.constant(g)).numpy()
    want_m = np.ones(5, np.float32) * np.float32(0.5) + g
    if flag:
        want_m = want_m + g * np.float32(10.0)
    np.testing.assert_array_equal(got_m, want_m)
    np.testing.assert_array_equal(p.numpy(), np.arange(5, dtype=np.float32) - want_m * np.float32(0.25))
