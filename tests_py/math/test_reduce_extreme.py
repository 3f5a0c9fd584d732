"""tf.reduce_max / tf.reduce_min over float32 rows and columns of every size (fn runs them on its
direct loops, which compare eight lanes at a time): NaN anywhere in a row gives NaN, infinities
and all -inf rows stay, eagerly and inside a function, as TF computes them. Expected values are
NumPy's max/min (NaN-propagating, as TF's), checked under TF with --against-tf.
Also the gradient of tf.reduce_mean (a BroadcastTo read through by fn's fused kernels) equals TF's."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def rows_with_specials(rows: int, cols: int, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    x = r.standard_normal((rows, cols)).astype(np.float32)
    x[1 % rows, cols // 2] = np.nan  # a NaN in the lanes
    x[2 % rows, cols - 1] = np.nan  # a NaN in the tail
    x[3 % rows, :] = -np.inf  # an all -inf row
    x[4 % rows, 0] = np.inf
    x[5 % rows, :] = -1.0 - np.arange(cols)  # the max at the front, the min at the back
    return x


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 3), (6, 8), (9, 13), (64, 64), (300, 40), (33, 257)])
def test_reduce_max_min_over_rows_propagate_nan(rows, cols):
    x = rows_with_specials(rows, cols, rows * 1000 + cols)
    fmax = tf.function(lambda t: tf.reduce_max(t, axis=-1, keepdims=True))
    for f, want in (
        (lambda t: tf.reduce_max(t, axis=1), np.max(x, axis=1)),
        (lambda t: tf.reduce_min(t, axis=-1), np.min(x, axis=1)),
        (fmax, np.max(x, axis=1, keepdims=True)),
    ):
        np.testing.assert_array_equal(f(tf.constant(x)).numpy(), want)


@pytest.mark.parametrize("shape,axis", [((5, 300), 0), ((4, 9, 17), 1), ((3, 2, 5000), 0), ((2, 64, 64), (1, 2))])
def test_reduce_max_min_over_columns_and_runs(shape, axis):
    r = np.random.default_rng(sum(shape))
    x = r.standard_normal(shape).astype(np.float32)
    x.flat[7] = np.nan
    x.flat[x.size // 2] = np.inf
    for f, g in ((tf.reduce_max, np.max), (tf.reduce_min, np.min)):
        np.testing.assert_array_equal(f(tf.constant(x), axis=axis).numpy(), g(x, axis=axis))
        np.testing.assert_array_equal(
            tf.function(lambda t, f=f: f(t, axis=axis))(tf.constant(x)).numpy(), g(x, axis=axis)
        )


def test_reduce_max_gradient_centered_rows():
    # x - max(x) over rows, then a mean: the max's gradient (ties share it) and the mean's
    x = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, -1.0, 2.0, 2.0], [4.0, 4.0, 4.0, 4.0]], np.float32)
    xt = tf.constant(x)

    @tf.function
    def grad(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_mean(tf.tanh(t - tf.reduce_max(t, axis=-1, keepdims=True)) * t)
        return tape.gradient(y, t)

    c = x - x.max(axis=1, keepdims=True)
    th = np.tanh(c)
    dy = np.full_like(x, 1.0 / x.size)
    dc = dy * x * (1 - th * th)
    ties = (x == x.max(axis=1, keepdims=True)).astype(np.float32)
    dmax = -(dc.sum(axis=1, keepdims=True)) * ties / ties.sum(axis=1, keepdims=True)
    want = dy * th + dc + dmax
    np.testing.assert_allclose(grad(xt).numpy(), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape,axis", [((16, 300), -1), ((16, 300), None), ((8, 5, 7), (1, 2)), ((8, 5, 7), 0)])
def test_reduce_mean_gradient_through_a_fused_chain(shape, axis):
    # The gradient of a mean (its upstream gradient broadcast over the reduced axes, divided by
    # the count) feeding the chain rule of tanh and a product
    r = np.random.default_rng(len(shape) * 10 + (0 if axis is None else 1))
    x = r.standard_normal(shape).astype(np.float32)
    w = r.standard_normal(shape).astype(np.float32)

    @tf.function
    def grad(t, u):
        with tf.GradientTape() as tape:
            tape.watch(t)
            m = tf.reduce_mean(tf.tanh(t) * u, axis=axis)
            y = tf.reduce_sum(m * m)
        return tape.gradient(y, t)

    m = np.mean(np.tanh(x) * w, axis=axis, keepdims=True)
    count = x.size // m.size
    want = 2 * m / count * w * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(grad(tf.constant(x), tf.constant(w)).numpy(), want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(9, 70), (256, 32), (3, 1)])
def test_centered_rows_in_a_function_equal_eager_bits(shape):
    # a lone broadcasting binary op (fn runs it as a fused node inside a function) gives the
    # eager op's bits: x - max(x), x - mean(x) over rows, a per-column scale
    r = np.random.default_rng(shape[0])
    x = tf.constant(r.standard_normal(shape).astype(np.float32))
    c = tf.constant(r.standard_normal(shape[1:]).astype(np.float32))

    def f(t):
        return (
            t - tf.reduce_max(t, axis=-1, keepdims=True),
            t - tf.reduce_mean(t, axis=-1, keepdims=True),
            tf.maximum(c, t),
            t * 0.5,
        )

    for got, want in zip(tf.function(f)(x), f(x)):
        np.testing.assert_array_equal(got.numpy().view(np.int32), want.numpy().view(np.int32))
