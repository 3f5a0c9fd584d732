"""Gradients of every differentiable math op against central finite differences (float64),
with broadcasting and non-uniform output gradients, plus TF's exact values at the edges
(ties, zeros, non-differentiable ops giving None)."""
import numpy as np
import pytest

import fn


def numeric_grad(f, xs, w, eps=1e-6):
    """d/dx_i sum(w * f(x)) by central differences, evaluated with fn itself."""
    def loss(args):
        return float(np.sum(w * np.asarray(f(*[fn.constant(a) for a in args]).numpy())))
    grads = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            plus = [a.copy() for a in xs]
            minus = [a.copy() for a in xs]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (loss(plus) - loss(minus)) / (2 * eps)
        grads.append(g)
    return grads


def tape_grad(f, xs, w):
    ts = [fn.constant(x) for x in xs]
    with fn.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = f(*ts)
    return tape.gradient(y, ts, output_gradients=fn.constant(w)), y


def check_grad(f, *xs, seed=0, rtol=1e-5, atol=1e-7):
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x, np.float64) for x in xs]
    y = np.asarray(f(*[fn.constant(x) for x in xs]).numpy())
    w = rng.uniform(0.5, 1.5, size=y.shape)
    got, _ = tape_grad(f, xs, w)
    want = numeric_grad(f, xs, w)
    for g, n, x in zip(got, want, xs):
        assert g is not None
        assert g.shape == fn.TensorShape(list(x.shape))
        np.testing.assert_allclose(g.numpy(), n, rtol=rtol, atol=atol)


R = np.random.default_rng(42)
A23 = R.uniform(-2, 2, (2, 3))
B3 = R.uniform(-2, 2, (3,))
B21 = R.uniform(-2, 2, (2, 1))
POS23 = R.uniform(0.5, 2, (2, 3))
POS3 = R.uniform(0.5, 2, (3,))

BINARY = [
    ("add", lambda x, y: x + y, A23, B3),
    ("sub", lambda x, y: x - y, A23, B21),
    ("mul", lambda x, y: x * y, A23, B3),
    ("mul scalar", lambda x, y: x * y, A23, np.float64(1.7)),
    ("realdiv", lambda x, y: x / y, A23, POS3),
    ("divide_no_nan", fn.math.divide_no_nan, A23, POS3),
    ("floormod", fn.math.floormod, A23 + 5, np.array([1.3, 2.1, 1.7])),
    ("pow", lambda x, y: x ** y, POS23, B3),
    ("maximum", fn.maximum, A23, B3),
    ("minimum", fn.minimum, A23, B21),
    ("squared_difference", fn.math.squared_difference, A23, B3),
    ("matmul", fn.matmul, A23, R.uniform(-1, 1, (3, 2))),
]


@pytest.mark.parametrize("name,f,x,y", BINARY, ids=[b[0] for b in BINARY])
def test_binary_gradients(name, f, x, y):
    check_grad(f, x, y)


UNARY = [
    ("neg", fn.negative, A23), ("abs", fn.abs, A23), ("square", fn.square, A23),
    ("sqrt", fn.sqrt, POS23), ("rsqrt", fn.math.rsqrt, POS23), ("exp", fn.exp, A23),
    ("log", fn.math.log, POS23), ("log1p", fn.math.log1p, POS23), ("tanh", fn.tanh, A23),
    ("sigmoid", fn.sigmoid, A23), ("relu", fn.nn.relu, A23), ("relu6", fn.nn.relu6, A23 * 4),
    ("elu", fn.nn.elu, A23), ("softplus", fn.nn.softplus, A23), ("sin", fn.sin, A23),
    ("cos", fn.cos, A23), ("reciprocal", fn.math.reciprocal, POS23),
    ("identity add_n", lambda x: fn.add_n([x, x * 2.0, x]), A23),
]


@pytest.mark.parametrize("name,f,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradients(name, f, x):
    check_grad(f, x)


def test_cast_gradient_casts_back():
    x = fn.constant([1.5, 2.5])
    with fn.GradientTape() as tape:
        tape.watch(x)
        y = fn.cast(x, fn.float64) * fn.constant([2.0, 3.0], fn.float64)
    g = tape.gradient(y, x)
    assert g.dtype == fn.float32 and g.numpy().tolist() == [2.0, 3.0]


A234 = R.uniform(0.5, 1.5, (2, 3, 4))
REDUCE = [
    ("sum all", lambda x: fn.reduce_sum(x)),
    ("sum axis 1", lambda x: fn.reduce_sum(x, 1)),
    ("sum axis -1 keep", lambda x: fn.reduce_sum(x, -1, keepdims=True)),
    ("sum axes 0,2", lambda x: fn.reduce_sum(x, [0, 2])),
    ("mean axis 0", lambda x: fn.reduce_mean(x, 0)),
    ("mean axes 1,2", lambda x: fn.reduce_mean(x, [1, 2])),
    ("max axis 1", lambda x: fn.reduce_max(x, 1)),
    ("min all keep", lambda x: fn.reduce_min(x, keepdims=True)),
    ("prod axis 2", lambda x: fn.reduce_prod(x, 2)),
    ("prod axis 0", lambda x: fn.reduce_prod(x, 0)),
    ("logsumexp", lambda x: fn.reduce_logsumexp(x, 1)),
    ("variance", lambda x: fn.math.reduce_variance(x, -1)),
]


@pytest.mark.parametrize("name,f", REDUCE, ids=[r[0] for r in REDUCE])
def test_reduction_gradients(name, f):
    if ("axis 1" in name or "axes 1,2" in name or "axis -1" in name or "axes 0,2" in name
            or "axis 2" in name or "logsumexp" in name or "variance" in name) and not fn._core.has_op("Reshape"):
        pytest.skip("needs the Reshape op (the shape-ops half of issue 3)")
    check_grad(f, A234)


def tape_of(f, *xs):
    ts = [fn.constant(np.asarray(x, np.float32)) for x in xs]
    with fn.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = f(*ts)
    return tape.gradient(y, ts)


def test_gradient_values_at_the_edges_match_tensorflow():
    # ties: maximum gives x the gradient, minimum too; reduce_max shares it equally
    gx, gy = tape_of(fn.maximum, [1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    assert gx.numpy().tolist() == [0, 1, 1] and gy.numpy().tolist() == [1, 0, 0]
    gx, gy = tape_of(fn.minimum, [1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    assert gx.numpy().tolist() == [1, 1, 0] and gy.numpy().tolist() == [0, 0, 1]
    (g,) = tape_of(lambda x: fn.reduce_max(x, 0), [[1.0, 3.0, 3.0], [3.0, 0.0, 1.0]])
    assert g.numpy().tolist() == [[0, 1, 1], [1, 0, 0]]
    (g,) = tape_of(lambda x: fn.reduce_max(x), [1.0, 3.0, 3.0])
    assert g.numpy().tolist() == [0, 0.5, 0.5]
    # products with zeros
    (g,) = tape_of(lambda x: fn.reduce_prod(x), [1.0, 0.0, 3.0])
    assert g.numpy().tolist() == [0, 3, 0]
    (g,) = tape_of(lambda x: fn.reduce_prod(x), [2.0, 0.0, 0.0])
    assert g.numpy().tolist() == [0, 0, 0]
    (g,) = tape_of(lambda x: fn.reduce_prod(x), [2.0, 4.0, 5.0])
    assert g.numpy().tolist() == [20, 10, 8]
    # pow: dy is 0 where x <= 0
    gx, gp = tape_of(lambda x, p: x ** p, [-2.0, 0.0, 2.0], [2.0, 2.0, 2.0])
    assert gx.numpy().tolist() == [-4, 0, 4]
    assert gp.numpy()[:2].tolist() == [0, 0] and abs(gp.numpy()[2] - 4 * np.log(2)) < 1e-5
    # kinks: relu'(0) = relu6'(0) = relu6'(6) = abs'(0) = 0
    (g,) = tape_of(lambda x: fn.nn.relu(x) + fn.nn.relu6(x) + fn.abs(x), [-1.0, 0.0, 1.0, 6.0, 7.0])
    assert g.numpy().tolist() == [-1, 0, 3, 2, 2]
    (g,) = tape_of(fn.sqrt, [0.0, 4.0])
    assert g.numpy().tolist() == [np.inf, 0.25]
    (g,) = tape_of(fn.nn.elu, [-1.0])
    assert abs(g.numpy()[0] - np.exp(-1)) < 1e-6
    (g,) = tape_of(fn.sign, [1.5])
    assert g.numpy() == 0.0                                # zeros, not None
    (g,) = tape_of(lambda x: 5.0 % x, [1.5])
    assert g.numpy() == -3.0


@pytest.mark.parametrize("f", [fn.round, fn.floor, fn.math.ceil, lambda x: x // 2.0,
                               lambda x: fn.cast(x, fn.int32), lambda x: fn.cast(x, fn.bool),
                               lambda x: fn.cast(fn.argmax(x), fn.float32),
                               lambda x: fn.cast(fn.equal(x, 1.5), fn.float32), fn.zeros_like, fn.ones_like])
def test_non_differentiable_ops_give_none(f):
    (g,) = tape_of(f, [1.5, 2.5])
    assert g is None


def test_higher_order_gradients():
    x = fn.constant(3.0)
    with fn.GradientTape() as outer:
        outer.watch(x)
        with fn.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert dy.numpy() == 27 and d2y.numpy() == 18
    for f, d2 in [(fn.tanh, lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2)),
                  (fn.sigmoid, lambda v: (s := 1 / (1 + np.exp(-v))) * (1 - s) * (1 - 2 * s)),
                  (fn.sin, lambda v: -np.sin(v)), (fn.exp, np.exp), (fn.math.log, lambda v: -1 / v ** 2)]:
        x = fn.constant(0.7, fn.float64)
        with fn.GradientTape() as t2:
            t2.watch(x)
            with fn.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            d = t1.gradient(y, x)
        np.testing.assert_allclose(t2.gradient(d, x).numpy(), d2(0.7), rtol=1e-10)
