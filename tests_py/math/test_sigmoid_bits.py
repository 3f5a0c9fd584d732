"""tf.sigmoid on float32 computes TensorFlow's CPU formula (Eigen's packet logistic: exp(x / 2) by
a degree-5 polynomial, squared, then e / (1 + e), multiplies and adds rounded separately, denormal
results flushed to zero as TF's threads do): the same bits eagerly, inside a function (fn's fused
elementwise kernel) and in TF. The expected bits come from that formula emulated in NumPy float32;
the TF run (--against-tf) checks that the formula is TF's. Sizes are multiples of 32 (TF's Eigen
executor takes its packet path for all elements then) and below fn's oneDNN threshold."""

import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

F32 = np.float32


def eigen_logistic(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):  # NaN and inf inputs
        return _eigen_logistic(x.astype(F32))


def _eigen_logistic(x: np.ndarray) -> np.ndarray:
    c = F32
    zero = x < c(-104.0)
    v = np.minimum(x, c(16.6355324)) * c(0.5)
    m = np.floor(v * c(1.44269504088896341) + c(0.5)).astype(F32)
    r = m * c(-0.693359375) + v
    r = m * c(2.12194440e-4) + r
    r2 = r * r
    p_even = r2 * c(4.1898667812347412109375e-2) + c(0.49999141693115234375)
    p_odd = r2 * c(8.33471305668354034423828125e-3) + c(0.16666877269744873046875)
    p = r * p_odd + p_even
    p = r2 * p + (r + c(1.0))
    b = np.clip(m + c(127.0), 0, 255).astype(np.int32)
    e = p * (b << 23).view(F32)
    e = e * e
    out = e / (c(1.0) + e)
    return np.where(zero | (e < np.finfo(F32).tiny), c(0.0), out).astype(F32)


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    both_nan = np.isnan(got) & np.isnan(want)
    bad = ~((got == want) | both_nan)
    assert not bad.any(), (np.asarray(got)[bad][:5], want[bad][:5], np.nonzero(bad)[0][:5])


@pytest.mark.parametrize("n", [32, 4096])
def test_sigmoid_bits_are_tf_formula(n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 8).astype(F32)
    x[:12] = [0.0, -0.0, 1e-8, -1e-8, 20.0, -20.0, -90.0, -110.0, 16.7, np.inf, -np.inf, np.nan]
    want = eigen_logistic(x)
    same_bits(np.asarray(tf.sigmoid(tf.constant(x))), want)
    same_bits(np.asarray(tf.function(tf.sigmoid)(tf.constant(x))), want)
    # inside a fused tree (fn) / an elementwise chain (TF)
    got = np.asarray(tf.function(lambda t: tf.sigmoid(t * 1.0) + 0.0)(tf.constant(x)))
    same_bits(got, want + F32(0.0))
    if not IS_TF:
        assert got[6] == 0.0  # sigmoid(-90): exp(-90) is denormal, flushed as in TF
