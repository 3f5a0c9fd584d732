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
    ([[4.0, 5.0], [10.0, 1.0]], [[0x3e89b2b1, 0x3f3b26a7], [0x3f7ff7ea, 0x3901637b]]),
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [[0x3db861f2, 0x3e7a9a1a, 0x3f2a4d3a],
                                           [0x3db861f2, 0x3e7a9a1a, 0x3f2a4d3a]]),
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
        (nan, 0.0): [nan, 0.0], (0.0, nan): [0.0, nan], (inf, 0.0): [nan, 0.0], (-inf, 0.0): [0.0, 1.0],
        (-inf, -inf): [nan, nan], (inf, inf): [nan, nan], (-200.0, 0.0, 100.0): [0.0, 0.0, 1.0],
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
