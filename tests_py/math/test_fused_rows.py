"""Elementwise chains through last-axis reductions (layer norm written by hand, with
tf.nn.moments, RMS norm, L2 normalisation, softmax and log-softmax by hand, and their gradients)
give the same numbers in a function, where fn runs them as one row program
(passes/fuse_rows.cpp, kernels/fused/rows.h), as eagerly (op by op) and as NumPy in float64.
Under fn the function's results are bit for bit those of the same function traced with
FN_FUSE_ROWS=0 (the trees and reductions as separate kernels: each stage computes what its node
computes, row by row); the fused side runs with FN_FUSE_ROWS=1, which fuses every size (by
default only groups of 2^17 elements and more are fused); eager op-by-op results (fn's big eager Exp is oneDNN's) and TF's are
compared with a tolerance."""

import os

import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

SHAPES = [(5, 1), (3, 7), (4, 16), (2, 3, 17), (9, 255), (2, 2, 3, 256), (3, 1000), (64, 256)]


def layer_norm(h, g, b):
    mean = tf.reduce_mean(h, axis=-1, keepdims=True)
    var = tf.reduce_mean(tf.square(h - mean), axis=-1, keepdims=True)
    return (h - mean) * tf.math.rsqrt(var + 1e-5) * g + b


def layer_norm_stats(h, g, b):  # the statistics returned too (read outside the row program)
    mean = tf.reduce_mean(h, axis=-1, keepdims=True)
    var = tf.reduce_mean(tf.square(h - mean), axis=-1, keepdims=True)
    return (h - mean) * tf.math.rsqrt(var + 1e-5) * g + b, mean, var


def moments_norm(h, g, b):
    mean, var = tf.nn.moments(h, [-1], keepdims=True)
    return tf.nn.batch_normalization(h, mean, var, b, g, 1e-3)


def rms_norm(h, g, b):
    return h * tf.math.rsqrt(tf.reduce_mean(tf.square(h), -1, keepdims=True) + 1e-6) * g


def l2_normalize(h, g, b):
    return h * tf.math.rsqrt(tf.maximum(tf.reduce_sum(h * h, -1, keepdims=True), 1e-12)) + b


def softmax(h, g, b):
    e = tf.exp(h - tf.reduce_max(h, -1, keepdims=True))
    return e / tf.reduce_sum(e, -1, keepdims=True)


def log_softmax(h, g, b):
    s = h - tf.reduce_max(h, -1, keepdims=True)
    return s - tf.math.log(tf.reduce_sum(tf.exp(s), -1, keepdims=True))


def min_shift_sum(h, g, b):  # Min, and a Sum without keepdims
    return tf.reduce_sum(tf.square(h - tf.reduce_min(h, -1, keepdims=True)) * g, -1)


def mean_no_keepdims(h, g, b):  # a row statistic without keepdims, broadcast back by hand
    m = tf.reduce_mean(h, -1)
    return tf.reduce_mean(tf.square(h - m[..., None]), -1) + m


def np_ref(name, h, g, b):
    h, g, b = (a.astype(np.float64) for a in (h, g, b))
    if name in ("layer_norm", "layer_norm_stats", "moments_norm"):
        m = h.mean(-1, keepdims=True)
        v = ((h - m) ** 2).mean(-1, keepdims=True)
        eps = 1e-3 if name == "moments_norm" else 1e-5
        y = (h - m) / np.sqrt(v + eps) * g + b
        return [y, m, v] if name == "layer_norm_stats" else [y]
    if name == "rms_norm":
        return [h / np.sqrt((h * h).mean(-1, keepdims=True) + 1e-6) * g]
    if name == "l2_normalize":
        return [h / np.sqrt(np.maximum((h * h).sum(-1, keepdims=True), 1e-12)) + b]
    s = h - h.max(-1, keepdims=True)
    lse = np.log(np.exp(s).sum(-1, keepdims=True))
    if name == "softmax":
        return [np.exp(s - lse)]
    if name == "log_softmax":
        return [s - lse]
    if name == "min_shift_sum":
        return [(np.square(h - h.min(-1, keepdims=True)) * g).sum(-1)]
    m = h.mean(-1)
    return [np.square(h - m[..., None]).mean(-1) + m]


FUNCS = [
    layer_norm,
    layer_norm_stats,
    moments_norm,
    rms_norm,
    l2_normalize,
    softmax,
    log_softmax,
    min_shift_sum,
    mean_no_keepdims,
]


def inputs(shape, seed):
    r = np.random.default_rng(seed)
    h = (r.standard_normal(shape) * 2 + 0.5).astype(np.float32)
    g = r.uniform(0.5, 1.5, shape[-1:]).astype(np.float32)
    b = r.standard_normal(shape[-1:]).astype(np.float32)
    return h, g, b


def as_list(x):
    return [a.numpy() for a in (x if isinstance(x, (list, tuple)) else [x])]


@pytest.fixture(autouse=True)
def fuse_every_size(monkeypatch):
    """Row programs at every size (the default fuses only groups past a core's L2)."""
    monkeypatch.setenv("FN_FUSE_ROWS", "1")


def unfused(f, *args):
    """f as a function traced without row programs (fn), or eagerly (TF)."""
    if IS_TF:
        return as_list(f(*args))
    os.environ["FN_FUSE_ROWS"] = "0"
    try:
        return as_list(tf.function(f)(*args))
    finally:
        os.environ["FN_FUSE_ROWS"] = "1"


def check(got, base, want, rtol):
    for a, e, w in zip(got, base, want):
        if IS_TF:
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, e)  # fused == unfused, bit for bit
        np.testing.assert_allclose(a, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_forward(f, shape):
    h, g, b = inputs(shape, len(shape) * 1000 + shape[-1])
    args = [tf.constant(a) for a in (h, g, b)]
    got = as_list(tf.function(f)(*args))
    check(got, unfused(f, *args), np_ref(f.__name__, h, g, b), 2e-4)
    for a, e in zip(got, as_list(f(*args))):  # op by op
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def grads(f):
    def step(h, g, b):
        with tf.GradientTape() as tape:
            tape.watch([h, g, b])
            y = f(h, g, b)
            y = y[0] if isinstance(y, tuple) else y
            loss = tf.reduce_sum(y * tf.cos(h))  # a weight per element: every gradient term counts
        return [y] + tape.gradient(loss, [h, g, b], unconnected_gradients="zero")

    return step


@pytest.mark.parametrize("shape", [(5, 1), (3, 7), (2, 3, 17), (9, 255), (64, 256), (2, 2, 3, 256)])
@pytest.mark.parametrize("f", [layer_norm, moments_norm, rms_norm, softmax, log_softmax], ids=lambda f: f.__name__)
def test_gradients(f, shape):
    h, g, b = inputs(shape, shape[-1] + 7)
    args = [tf.constant(a) for a in (h, g, b)]
    step = grads(f)
    got = as_list(tf.function(step)(*args))
    base = unfused(step, *args)
    # The gradients against float64: test_layer_norm_gradient_against_float64; here the same
    # step unfused (bits under fn) and op by op (tolerance).
    check(got[:1], base[:1], np_ref(f.__name__, h, g, b)[:1], 2e-4)
    for a, e, o in zip(got[1:], base[1:], as_list(step(*args))[1:]):
        if not IS_TF:
            np.testing.assert_array_equal(a, e)
        np.testing.assert_allclose(a, o, rtol=1e-4, atol=1e-5)


def test_layer_norm_gradient_against_float64():
    h, g, b = inputs((6, 33), 3)
    args = [tf.constant(a) for a in (h, g, b)]
    got = as_list(tf.function(grads(layer_norm))(*args))
    # d/dh of sum(LN(h) * cos(h)): analytic, float64
    h64, g64, b64 = (a.astype(np.float64) for a in (h, g, b))
    m = h64.mean(-1, keepdims=True)
    v = ((h64 - m) ** 2).mean(-1, keepdims=True)
    r = 1 / np.sqrt(v + 1e-5)
    xhat = (h64 - m) * r
    y = xhat * g64 + b64
    dy = np.cos(h64)
    dxhat = dy * g64
    n = h.shape[-1]
    dh = r / n * (n * dxhat - dxhat.sum(-1, keepdims=True) - xhat * (dxhat * xhat).sum(-1, keepdims=True))
    dh += -np.sin(h64) * y
    np.testing.assert_allclose(got[1], dh, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(got[2], (dy * xhat).sum(0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[3], dy.sum(0), rtol=1e-4, atol=1e-4)


def test_float64_layer_norm():
    h, g, b = (a.astype(np.float64) for a in inputs((7, 17), 5))
    args = [tf.constant(a) for a in (h, g, b)]
    got = tf.function(layer_norm)(*args).numpy()
    np.testing.assert_allclose(got, np_ref("layer_norm", h, g, b)[0], rtol=1e-12, atol=1e-12)


def test_reduction_not_over_the_last_axis():
    h, g, b = inputs((16, 9), 9)

    def col_norm(h):  # a batch norm's statistics: over the first axis
        m = tf.reduce_mean(h, 0, keepdims=True)
        v = tf.reduce_mean(tf.square(h - m), 0, keepdims=True)
        return (h - m) * tf.math.rsqrt(v + 1e-5)

    x = tf.constant(h)
    got = tf.function(col_norm)(x).numpy()
    h64 = h.astype(np.float64)
    m = h64.mean(0, keepdims=True)
    want = (h64 - m) / np.sqrt(((h64 - m) ** 2).mean(0, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    check([got], unfused(col_norm, x), [want], 1e-4)


def test_nan_and_inf_rows():
    h, g, b = inputs((4, 20), 11)
    h[1, 3] = np.nan
    h[2, 5] = np.inf
    h[3, :] = -np.inf
    args = [tf.constant(a) for a in (h, g, b)]
    for f in (softmax, layer_norm):
        got = tf.function(f)(*args).numpy()
        want = np_ref(f.__name__, h, g, b)[0]
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4, equal_nan=True)
        if not IS_TF:
            np.testing.assert_array_equal(got, unfused(f, *args)[0])


@pytest.mark.skipif(IS_TF, reason="fn's plan")
def test_row_programs_in_the_plan():
    spec = tf.TensorSpec([64, 256], tf.float32)
    vec = tf.TensorSpec([256], tf.float32)

    def ops(f):
        return f.get_concrete_function(spec, vec, vec)._core.plan_step_ops()

    for f in (layer_norm, rms_norm, softmax, l2_normalize):
        got = ops(tf.function(f))
        assert got.count("_FusedRows") == 1 and not {"Mean", "Sum", "Max", "_FusedElementwise"} & set(got), got
    got = ops(tf.function(layer_norm_stats))
    assert got.count("_FusedRows") == 1 and "Mean" not in got, got
    got = ops(tf.function(grads(layer_norm)))
    assert got.count("_FusedRows") == 2, got  # forward, and the backward's row sums
    # float64 and a reduction over the first axis stay as they were
    f64 = tf.function(layer_norm).get_concrete_function(
        tf.TensorSpec([8, 16], tf.float64), tf.TensorSpec([16], tf.float64), tf.TensorSpec([16], tf.float64)
    )
    assert "_FusedRows" not in f64._core.plan_step_ops()
    col = tf.function(lambda h: h - tf.reduce_max(h, 0, keepdims=True) * tf.reduce_sum(h, 0, keepdims=True))
    assert "_FusedRows" not in col.get_concrete_function(spec)._core.plan_step_ops()


@pytest.mark.skipif(IS_TF, reason="fn's plan")
def test_default_fuses_only_groups_past_l2(monkeypatch):
    monkeypatch.delenv("FN_FUSE_ROWS")
    vec = tf.TensorSpec([256], tf.float32)
    small = tf.function(layer_norm).get_concrete_function(tf.TensorSpec([64, 256], tf.float32), vec, vec)
    big = tf.function(layer_norm).get_concrete_function(tf.TensorSpec([1024, 256], tf.float32), vec, vec)
    assert "_FusedRows" not in small._core.plan_step_ops()
    assert big._core.plan_step_ops().count("_FusedRows") == 1
