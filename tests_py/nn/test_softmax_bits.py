"""tf.nn.softmax gives TF 2.21's float32 numbers bit for bit (oneDNN's exp polynomial, a
16-lane sum, multiplication by the sum's reciprocal), eagerly and inside a Function."""

import numpy as np
import pytest

from tfbackend import tf

# Recorded from TF 2.21 running its oneDNN softmax (TF's default on AVX-512 CPUs; its Eigen softmax
# gives other last bits). fn reproduces these on every CPU.
pytestmark = [pytest.mark.tf_oracle, pytest.mark.tf_onednn]

# TF 2.21's outputs, as bit patterns (tensor.ipynb / basics.ipynb inputs, then random rows).
CASES = [
    ([[4.0, 5.0], [10.0, 1.0]], [[0x3E89B2B1, 0x3F3B26A7], [0x3F7FF7EA, 0x3901637B]]),
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [[0x3DB861F2, 0x3E7A9A1A, 0x3F2A4D3A], [0x3DB861F2, 0x3E7A9A1A, 0x3F2A4D3A]]),
]


def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32).tolist()


@pytest.mark.parametrize("x,expected", CASES)
def test_softmax_bits_eager_and_traced(x, expected):
    assert _bits(tf.nn.softmax(tf.constant(x)).numpy()) == expected
    f = tf.function(lambda t: tf.nn.softmax(t, axis=-1))
    assert _bits(f(tf.constant(x)).numpy()) == expected


def test_softmax_random_rows_match_checksum():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((32, 17)) * 3).astype(np.float32)
    y = tf.nn.softmax(x).numpy()
    # The sum of TF's bit patterns: any one-ulp difference changes it.
    assert int(np.asarray(y).view(np.uint32).astype(np.int64).sum()) == CHECKSUM


CHECKSUM = 542159210469


def test_softmax_nan_and_inf_as_tf():
    nan, inf = float("nan"), float("inf")
    cases = {
        (nan, 0.0): [nan, 0.0],
        (0.0, nan): [0.0, nan],
        (inf, 0.0): [nan, 0.0],
        (-inf, 0.0): [0.0, 1.0],
        (-inf, -inf): [nan, nan],
        (inf, inf): [nan, nan],
        (-200.0, 0.0, 100.0): [0.0, 0.0, 1.0],
    }
    for row, want in cases.items():
        got = tf.nn.softmax(tf.constant([list(row)])).numpy()[0]
        np.testing.assert_array_equal(got, np.array(want, np.float32))


@pytest.mark.avx512_bits  # oneDNN sums long rows in 16 lanes with AVX-512, 8 without
def test_long_rows_match_checksum():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((8, 1000)) * 3).astype(np.float32)
    y = tf.function(tf.nn.softmax)(x).numpy()
    assert int(np.asarray(y).view(np.uint32).astype(np.int64).sum()) == LONG_CHECKSUM


LONG_CHECKSUM = 7416469171277


# TF 2.21's checksums of big softmaxes (rows of whole 16-float blocks, above oneDNN's 16,384-element
# threshold): attention scores of 8 x 4 heads x 128 x 128 (run as row blocks on the task pool) and
# 300 rows of 64.
BIG_CASES = [((8, 4, 128, 128), 502690699738368), ((300, 64), 18614289833394), ((5, 1024), 4729526165178)]


@pytest.mark.avx512_bits  # TF sums rows in 16 lanes with AVX-512, 8 without
def test_big_softmax_matches_tf_bits():
    rng = np.random.default_rng(11)
    for shape, checksum in BIG_CASES:
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        y = tf.function(tf.nn.softmax)(x).numpy()
        assert int(np.asarray(y).view(np.uint32).astype(np.int64).sum()) == checksum, shape


@pytest.mark.parametrize("shape", [(8, 4, 128, 128), (2048, 80), (40000, 3), (3, 5)])
def test_big_softmax_and_gradient_close_to_formula(shape):
    # Forward and SoftmaxGrad over many row blocks (any column count), against float64 formulas.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)

    @tf.function
    def f(x, dy):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.nn.softmax(x)
        return y, t.gradient(y, x, output_gradients=dy)

    y, dx = (v.numpy() for v in f(tf.constant(x), tf.constant(dy)))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(-1, keepdims=True))
    want = e / e.sum(-1, keepdims=True)
    want_dx = want * (dy - (dy * want).sum(-1, keepdims=True))
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-6)


def test_softmax_nan_row_in_a_big_tensor_stays_in_its_row():
    x = np.random.default_rng(2).standard_normal((4096, 32)).astype(np.float32)
    x[1000, 5] = np.nan
    x[3000, 0] = np.inf
    y = tf.function(tf.nn.softmax)(tf.constant(x)).numpy()
    # As TF (see test_softmax_nan_and_inf_as_tf): the NaN stays, the row's other entries are 0.
    assert np.isnan(y[1000, 5]) and (np.delete(y[1000], 5) == 0).all()
    assert np.isnan(y[3000, 0]) and (y[3000, 1:] == 0).all()
    mask = np.ones(4096, bool)
    mask[[1000, 3000]] = False
    assert np.isfinite(y[mask]).all()
    np.testing.assert_allclose(y[mask].sum(-1), 1.0, rtol=1e-5)


# Rows of at most 16 floats run 16 rows at a time (kernels/reference/softmax_tf.cpp): TF's bits,
# eagerly and in a Function, with infinities and a huge value in some rows. (A NaN in a 16-float
# row is left out: TF's oneDNN kernel then also makes the row's last element NaN, fn does not.)
@pytest.mark.parametrize(
    ("rows", "cols", "seed", "checksum", "weighted"),
    [
        (48, 16, 1, 777090678908, 198137711),
        (40, 5, 2, 213025904867, 772306260),
        (35, 1, 3, 43738202112, 590196128),
        (64, 13, 4, 837713486861, 785579276),
    ],
)
def test_narrow_rows_match_tf_bits(rows, cols, seed, checksum, weighted):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    x[5, -1] = np.inf
    x[7, :] = -np.inf
    x[9, 1 % cols] = 1e30
    for y in (tf.nn.softmax(tf.constant(x)), tf.function(tf.nn.softmax)(tf.constant(x))):
        b = np.asarray(y.numpy()).view(np.uint32).astype(np.int64)
        assert int(b.sum()) == checksum
        assert int((b * np.arange(b.size).reshape(b.shape)).sum() % 1000000007) == weighted
