"""Random elementwise expression trees, with shared subexpressions and an optional sum or mean
over the rows or the columns, give the same numbers in a function (where fn fuses them: passes/fuse_elementwise.cpp,
passes/fuse_contraction.cpp) as eagerly (op by op) and as NumPy in float64. Under fn the function
and eager results are bit for bit equal (the fused kernels apply the same functors in the same
order); TF's grappler may regroup, so across systems the check is a tolerance."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

UNARY = {
    "neg": (lambda t: -t, lambda a: -a),
    "abs": (tf.abs, np.abs),
    "square": (tf.square, np.square),
    "relu": (tf.nn.relu, lambda a: np.maximum(a, 0)),
    "tanh": (tf.tanh, np.tanh),
    "sigmoid": (tf.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "cube": (lambda t: t**3, lambda a: a**3),  # Pow by a constant (gelu's x ** 3)
    "inv_square": (lambda t: t**-2.0, lambda a: a**-2.0),
}
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "max": (tf.maximum, np.maximum),
    "min": (tf.minimum, np.minimum),
    "sqdiff": (tf.math.squared_difference, lambda a, b: np.square(a - b)),
}


@st.composite
def programs(draw):
    """A list of steps over values v0 (x), v1 (a row broadcast), v2 (a per-row column), v3 (a
    scalar); each step appends a value made from earlier ones, so values are often shared."""
    steps = []
    n_values = 4
    for _ in range(draw(st.integers(2, 9))):
        if draw(st.booleans()):
            steps.append(("u", draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, n_values - 1))))
        else:
            steps.append(
                (
                    "b",
                    draw(st.sampled_from(sorted(BINARY))),
                    draw(st.integers(0, n_values - 1)),
                    draw(st.integers(0, n_values - 1)),
                )
            )
        n_values += 1
    # a sum or mean over the last axis (rows: a layer norm's statistics) or the first (columns: a
    # batch norm's moments, a bias gradient)
    reduce = draw(st.sampled_from([None, ("sum", -1), ("mean", -1), ("sum", 0), ("mean", 0)]))
    # several outputs: intermediates a fused tree also writes (multi-output trees)
    outputs = draw(st.lists(st.integers(4, n_values - 1), min_size=1, max_size=4, unique=True))
    return steps, reduce, outputs


def run(prog, vals, unary, binary, reduce_fn):
    steps, reduce, outputs = prog
    vals = list(vals)
    for s in steps:
        vals.append(unary[s[1]](vals[s[2]]) if s[0] == "u" else binary[s[1]](vals[s[2]], vals[s[3]]))
    outs = [vals[i] for i in outputs]
    if reduce:
        outs[0] = reduce_fn(reduce, outs[0])
    return outs


def tf_reduce(spec, t):
    if t.shape.rank < 2:  # a value made of the scalar and the row only
        return t
    return (tf.reduce_sum if spec[0] == "sum" else tf.reduce_mean)(t, axis=spec[1], keepdims=True)


def np_reduce(spec, a):
    if np.ndim(a) < 2:
        return a
    return (np.sum if spec[0] == "sum" else np.mean)(a, axis=spec[1], keepdims=True)


@settings(max_examples=60, deadline=None)
@example(prog=([("u", "relu", 0), ("u", "inv_square", 4)], None, [5]), rows=1, cols=1, seed=2)  # relu(x)**-2 = inf
@given(
    prog=programs(),
    rows=st.sampled_from([1, 2, 3, 5, 6, 40]),
    cols=st.sampled_from([1, 7, 33, 300]),
    seed=st.integers(0, 2**16),
)
def test_random_trees_match_eager_and_numpy(prog, rows, cols, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    row = rng.uniform(-2, 2, (cols,)).astype(np.float32)
    col = rng.uniform(-2, 2, (rows, 1)).astype(np.float32)
    sc = np.float32(rng.uniform(-2, 2))
    unary = {k: v[0] for k, v in UNARY.items()}
    binary = {k: v[0] for k, v in BINARY.items()}

    @tf.function
    def f(x, row, col, sc):
        return run(prog, [x, row, col, sc], unary, binary, tf_reduce)

    args = [tf.constant(v) for v in (x, row, col, sc)]
    got = [t.numpy() for t in f(*args)]
    eager = [t.numpy() for t in run(prog, args, unary, binary, tf_reduce)]
    want = run(
        prog,
        [a.astype(np.float64) for a in (x, row, col, np.float64(sc))],
        {k: v[1] for k, v in UNARY.items()},
        {k: v[1] for k, v in BINARY.items()},
        np_reduce,
    )
    for g, e, w in zip(got, eager, want):
        assert g.shape == e.shape == np.shape(w)
        if not IS_TF:  # fn: the fused function computes exactly what the ops do one by one
            np.testing.assert_array_equal(g, e)
        # Equal infinities (0 ** -2) and NaNs on both sides agree; inf - inf would be NaN.
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        with np.errstate(invalid="ignore"):
            err = np.where(same, 0.0, np.abs(g - w) / np.maximum(1.0, np.abs(w)))
        np.testing.assert_array_less(err, 1e-4 * max(rows, cols))
