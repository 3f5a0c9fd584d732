"""A convolution, its epilogue and the pooling after it (issue 24): fn computes `pool(act(conv2d(x,
k) [+ b]))` as one _FusedConv2D that pools each batch slice right after its convolution
(passes/fuse_conv_pool.cpp, ops/fused_conv2d.cpp). Checked against NumPy in float64 (the same
code runs under TensorFlow 2.21 with `--against-tf`) over the family: with and without a bias,
several epilogues (none, relu, relu6, gelu, sigmoid, the add of another tensor), max and average
pooling, SAME/VALID, strides, 1x1 kernels, dilations, odd channel counts, batch 1 and batches
cut into slices; and fused against unfused (the same function also returning the convolution,
which then keeps its own step): the same bits where the epilogue is the standalone ops' formula."""

import numpy as np
import pytest

from reference import conv2d as np_conv2d
from reference import gelu_tanh as np_gelu_tanh
from reference import pool as np_pool
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

NAN, INF = np.float32("nan"), np.float32("inf")

EPILOGUES = {
    "none": (lambda h, r: h, lambda c, r: c),
    "relu": (lambda h, r: tf.nn.relu(h), lambda c, r: np.maximum(c, 0)),
    "relu6": (lambda h, r: tf.nn.relu6(h), lambda c, r: np.clip(c, 0, 6)),
    "gelu": (lambda h, r: tf.nn.gelu(h, approximate=True), lambda c, r: np_gelu_tanh(c)),
    "sigmoid": (lambda h, r: tf.sigmoid(h), lambda c, r: 1 / (1 + np.exp(-c))),
    "add": (lambda h, r: h + r, lambda c, r: c + r),
}

# (input NHWC, filter HWIO, conv stride, dilation, conv padding, pool kind, pool k, pool stride, pool padding)
SHAPES = [
    ((32, 28, 28, 1), (3, 3, 1, 32), 1, 1, "SAME", "max", 2, 2, "VALID"),  # the benchmark's first layer
    ((32, 14, 14, 32), (3, 3, 32, 64), 1, 1, "SAME", "max", 2, 2, "VALID"),  # its second
    ((1, 20, 20, 3), (3, 3, 3, 8), 1, 1, "SAME", "max", 2, 2, "VALID"),  # batch 1
    ((7, 17, 15, 5), (3, 3, 5, 7), 2, 1, "SAME", "avg", 3, 2, "SAME"),  # odd sizes, stride 2
    ((9, 16, 16, 6), (1, 1, 6, 24), 1, 1, "VALID", "avg", 2, 2, "VALID"),  # 1x1 kernel
    ((5, 19, 19, 4), (3, 3, 4, 12), 1, 2, "VALID", "max", 3, 1, "SAME"),  # dilation 2, overlapping windows
    ((16, 12, 12, 8), (5, 5, 8, 16), 1, 1, "SAME", "max", 3, 3, "SAME"),  # padded windows at the edge
]


def case(shape, seed=0):
    xs, ks, cs, dil, cpad, kind, pk, ps, ppad = shape
    r = np.random.default_rng(seed)
    x = r.standard_normal(xs, np.float32)
    k = (r.standard_normal(ks, np.float32) / np.sqrt(ks[0] * ks[1] * ks[2])).astype(np.float32)
    b = r.standard_normal(ks[3], np.float32)
    c = np_conv2d(x, k, (cs, cs), (dil, dil), cpad)
    res = r.standard_normal(c.shape, np.float32)
    return x, k, b, res, c


def net(shape, epilogue, bias, also_conv=False):
    _, _, cs, dil, cpad, kind, pk, ps, ppad = shape
    act = EPILOGUES[epilogue][0]
    pool = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d

    def f(x, k, b, r):
        c = tf.nn.conv2d(x, k, cs, cpad, dilations=dil)
        h = act(tf.nn.bias_add(c, b) if bias else c, r)
        out = pool(h, pk, ps, ppad)
        return (out, c) if also_conv else out

    return tf.function(f)


def want(shape, epilogue, bias, b, res, c):
    _, _, _, _, _, kind, pk, ps, ppad = shape
    h = EPILOGUES[epilogue][1](c + b if bias else c, res)
    return np_pool(h, (pk, pk), (ps, ps), ppad, kind)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[0])) + "_" + s[5])
@pytest.mark.parametrize("epilogue", list(EPILOGUES))
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
def test_conv_epilogue_pool_matches_numpy(shape, epilogue, bias):
    x, k, b, res, c = case(shape)
    got = np.asarray(net(shape, epilogue, bias)(x, k, b, res))
    np.testing.assert_allclose(got, want(shape, epilogue, bias, b, res, c), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[0])) + "_" + s[5])
@pytest.mark.parametrize("epilogue", ["none", "relu", "relu6", "add"])
def test_fused_pool_gives_the_unfused_bits(shape, epilogue):
    # Without a bias the epilogue is the standalone ops' formula in both graphs, and the pooling
    # the standalone op's kernel: the same bits whether the pool joins the convolution or not.
    x, k, b, res, _ = case(shape, seed=1)
    fused = np.asarray(net(shape, epilogue, False)(x, k, b, res))
    unfused = np.asarray(net(shape, epilogue, False, also_conv=True)(x, k, b, res)[0])
    np.testing.assert_array_equal(fused, unfused)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_nan_and_inf_through_relu_without_bias_and_pool(kind):
    # TF leaves Relu after a Conv2D without BiasAdd unfused: a NaN stays NaN through it. Its max
    # pooling skips NaNs, and in a graph grappler computes max_pool(relu(c)) as relu(max_pool(c)):
    # a window of NaNs only pools to -FLT_MAX, which the Relu makes 0. Average pooling keeps NaN.
    shape = ((8, 12, 12, 2), (3, 3, 2, 16), 1, 1, "SAME", kind, 2, 2, "VALID")
    x, k, b, res, _ = case(shape, seed=2)
    x[3, 5, 5, 1] = NAN
    x[6, 0, 0, 0] = INF
    got = np.asarray(net(shape, "relu", False)(x, k, b, res))
    with np.errstate(invalid="ignore"):
        c = np_conv2d(x, k, (1, 1), (1, 1), "SAME")
        if kind == "max":
            lowest = np.finfo(np.float32).min
            ref = np.maximum(np_pool(np.where(np.isnan(c), lowest, c), (2, 2), (2, 2), "VALID", "max"), 0)
            assert (ref[3] == 0).all(axis=-1).any()  # some window held NaNs only
        else:
            ref = np_pool(np.where(np.isnan(c), np.nan, np.maximum(c, 0)), (2, 2), (2, 2), "VALID", "avg")
    assert np.isnan(got).sum() == np.isnan(ref).sum()
    assert (np.isnan(ref).sum() > 0) == (kind == "avg")
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_pooled_conv_under_a_tape():
    # Under a tape the gradient reads the convolution's output too: the values and gradients
    # are those of the unfused computation.
    shape = SHAPES[1]
    x, k, b, res, c = case(shape, seed=3)
    kv, bv = tf.Variable(k), tf.Variable(b)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, kv, 1, "SAME") + bv), 2, 2, "VALID")
            loss = tf.reduce_sum(h * h)
        return h, tape.gradient(loss, [kv, bv])

    h, (dk, db) = f(tf.constant(x))
    with tf.GradientTape() as tape:
        he = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, kv, 1, "SAME") + bv), 2, 2, "VALID")
        loss = tf.reduce_sum(he * he)
    dke, dbe = tape.gradient(loss, [kv, bv])
    np.testing.assert_allclose(np.asarray(h), want(shape, "relu", True, b, res, c), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dk), np.asarray(dke), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(np.asarray(db), np.asarray(dbe), rtol=1e-4, atol=1e-3)


def test_pooled_conv_of_several_readers_and_chained_layers():
    # Two layers, the first's pooled output read twice; a pool of a pool; an avg pool of a
    # bias+relu6 convolution: every pool reads what its unfused form reads.
    r = np.random.default_rng(4)
    x = r.standard_normal((6, 16, 16, 3), np.float32)
    k1 = r.standard_normal((3, 3, 3, 8), np.float32) * 0.3
    k2 = r.standard_normal((3, 3, 8, 8), np.float32) * 0.3
    b = r.standard_normal(8, np.float32)

    @tf.function
    def f(x):
        p1 = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, k1, 1, "SAME")), 2, 2, "VALID")
        p2 = tf.nn.avg_pool2d(tf.nn.relu6(tf.nn.conv2d(p1, k2, 1, "SAME") + b), 2, 2, "VALID")
        return p1 * 2.0, tf.nn.max_pool2d(p2, 2, 2, "VALID"), p1

    a, c, p1 = (np.asarray(t) for t in f(x))
    w1 = np_pool(np.maximum(np_conv2d(x, k1), 0), (2, 2), (2, 2), "VALID", "max")
    w2 = np_pool(np.clip(np_conv2d(w1.astype(np.float32), k2) + b, 0, 6), (2, 2), (2, 2), "VALID", "avg")
    np.testing.assert_allclose(p1, w1, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(a, 2 * w1, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(c, np_pool(w2, (2, 2), (2, 2), "VALID", "max"), rtol=1e-4, atol=1e-4)


@pytest.mark.fn_only
def test_the_pool_joins_the_convolution():
    shape = SHAPES[0]
    x, k, b, res, _ = case(shape)
    for bias in (False, True):
        f = net(shape, "relu", bias)
        text = f.get_concrete_function(x, k, b, res)._core._plan_graph_text()
        assert "pool_op='MaxPool'" in text
        plan = [line for line in text.splitlines() if "MaxPool(" in line]
        assert not plan


def nan_window_case():
    # A NaN input pixel makes a 3x3 block of NaN convolution outputs: the 2x2 window at [3, 2, 2]
    # holds NaNs only.
    shape = ((8, 12, 12, 2), (3, 3, 2, 16), 1, 1, "SAME", "max", 2, 2, "VALID")
    x, k, b, _, _ = case(shape, seed=2)
    x[3, 5, 5, 1] = NAN
    return x, k, b


@pytest.mark.parametrize("act", ["relu", "relu6", "sigmoid", "tanh"])
def test_max_pool_of_a_monotone_function_is_the_function_of_the_pool(act):
    # grappler computes max_pool(f(c)) as f(max_pool(c)) for a non-decreasing f: the all-NaN
    # window pools to -FLT_MAX first, then f of it.
    x, k, _ = nan_window_case()
    f = {"relu": tf.nn.relu, "relu6": tf.nn.relu6, "sigmoid": tf.sigmoid, "tanh": tf.tanh}[act]
    got = np.asarray(tf.function(lambda x: tf.nn.max_pool2d(f(tf.nn.conv2d(x, k, 1, "SAME")), 2, 2, "VALID"))(x))
    assert got[3, 2, 2, 0] == {"relu": 0.0, "relu6": 0.0, "sigmoid": 0.0, "tanh": -1.0}[act]
    assert not np.isnan(got).any()


def test_max_pool_of_relu_of_a_bias_add_or_a_returned_relu_is_not_swapped():
    # Not swapped: a Relu of a BiasAdd (the remapper fuses it, its Relu maps NaN to 0), a Relu also
    # returned, a non-monotone function. Swapped: a Relu of an Add (not a BiasAdd).
    x, k, b = nan_window_case()
    conv = lambda x: tf.nn.conv2d(x, k, 1, "SAME")
    pool = lambda h: tf.nn.max_pool2d(h, 2, 2, "VALID")
    bias_add = np.asarray(tf.function(lambda x: pool(tf.nn.relu(tf.nn.bias_add(conv(x), b))))(x))
    assert bias_add[3, 2, 2, 0] == 0.0
    def both(x):
        h = tf.nn.relu(conv(x))
        return pool(h), h

    assert np.asarray(tf.function(both)(x)[0])[3, 2, 2, 0] == np.finfo(np.float32).min
    square = np.asarray(tf.function(lambda x: pool(tf.square(conv(x))))(x))
    assert square[3, 2, 2, 0] == np.finfo(np.float32).min
    add = np.asarray(tf.function(lambda x: pool(tf.nn.relu(conv(x) + b)))(x))
    assert add[3, 2, 2, 0] == 0.0


def test_eager_max_pool_of_relu_is_not_swapped():
    x, k, _ = nan_window_case()
    got = np.asarray(tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME")), 2, 2, "VALID"))
    assert got[3, 2, 2, 0] == np.finfo(np.float32).min
