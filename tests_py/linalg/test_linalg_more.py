"""tf.linalg beyond the first set: diagonal ranges k=(lo, hi) with TF's alignments, Qr's gradient
for wide matrices, Svd's gradient with full_matrices (abs(m - n) <= 1, as TF) and TF's errors
where TF has no gradient (Lu) or refuses one. Values against NumPy, gradients against finite
differences; the same file passes under TensorFlow (--against-tf)."""

import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(1)
X = np.arange(12.0).reshape(3, 4)


def np_diag_part(x, lo, hi, align="RIGHT_LEFT", pad=0.0):
    """NumPy reference of MatrixDiagPartV3 (TF's documented layout)."""
    m, n = x.shape[-2:]
    width = min(m + min(hi, 0), n - max(lo, 0))
    out = np.full(x.shape[:-2] + (hi - lo + 1, width), pad, x.dtype)
    for row, d in enumerate(range(hi, lo - 1, -1)):
        diag = np.diagonal(x, offset=d, axis1=-2, axis2=-1)
        left = (d >= 0 and align.startswith("LEFT")) or (d <= 0 and align.endswith("LEFT"))
        off = 0 if left else width - diag.shape[-1]
        out[..., row, off : off + diag.shape[-1]] = diag
    return out


@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])
@pytest.mark.parametrize("k", [(-1, 1), (-2, 3), (0, 2), (-2, -1), (1, 1)])
def test_diag_part_ranges(k, align):
    x = RNG.normal(size=(2, 3, 4))
    got = tf.linalg.diag_part(x, k=k, padding_value=7.0, align=align).numpy()
    want = np_diag_part(x, *k, align=align, pad=7.0)
    if k[0] == k[1]:
        want = want[..., 0, :]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT"])
def test_diag_and_set_diag_ranges_round_trip(align):
    x = RNG.normal(size=(2, 4, 5))
    for k in [(-1, 2), (-3, 0), (0, 4)]:
        band = np.zeros_like(x)
        for d in range(k[0], k[1] + 1):
            band += x * np.eye(4, 5, k=d)
        parts = tf.linalg.diag_part(x, k=k, align=align)
        built = tf.linalg.diag(parts, k=k, num_rows=4, num_cols=5, align=align)
        np.testing.assert_allclose(built.numpy(), band)
        cleared = tf.linalg.set_diag(x, tf.zeros_like(parts), k=k, align=align)
        np.testing.assert_allclose(cleared.numpy(), x - band)


def test_diag_ranges_default_shape_and_function():
    d = np.array([[1.0, 2, 3], [4, 5, 0]])
    got = tf.linalg.diag(d, k=(0, 1)).numpy()
    np.testing.assert_array_equal(got, [[4.0, 2, 0], [0, 5, 3], [0, 0, 0]])
    f = tf.function(lambda x: tf.linalg.diag_part(x, k=(-1, 1)))
    np.testing.assert_array_equal(f(tf.constant(X)).numpy(), np_diag_part(X, -1, 1))
    assert traced_shapes(lambda x: tf.linalg.diag_part(x, k=(-1, 2)), tf.TensorSpec([5, 3, 4])) == [[5, 4, 3]]
    assert traced_shapes(lambda x: tf.linalg.diag(x, k=(-1, 1)), tf.TensorSpec([3, 2])) == [[2, 2]]


def test_diag_range_errors():
    err = tf.errors.InvalidArgumentError
    with pytest.raises(err, match=r"lower_diag_index is out of bound: -4. It must be between -3 and 4"):
        tf.linalg.diag_part(X, k=(-4, 1))
    with pytest.raises(err, match=r"upper_diag_index is out of bound: 4 It must be between -3 and 4"):
        tf.linalg.diag_part(X, k=(0, 4))
    with pytest.raises(err, match=r"lower_diag_index must not be larger than upper_diag_index: 1 > 0"):
        tf.linalg.diag_part(X, k=(1, 0))
    with pytest.raises(err, match=r"diag_index must have only one or two elements, received 3 elements."):
        tf.linalg.diag_part(X, k=[0, 1, 2])
    with pytest.raises(err, match=r"does not match the lower_diag_index and upper_diag_index range"):
        tf.linalg.diag(np.ones((3, 3)), k=(0, 1))
    with pytest.raises(err, match=r"The number of rows or columns is not consistent with the specified d_lower"):
        tf.linalg.diag(np.ones((3, 2)), k=(-1, 1), num_rows=3, num_cols=4)
    with pytest.raises(err, match=r"The number of rows is too small."):
        tf.linalg.diag(np.ones((3, 2)), k=(-1, 1), num_rows=1)
    with pytest.raises(err, match=r"Expected diagonal shape: \[2,3\]"):
        tf.linalg.set_diag(X, np.ones((2, 4)), k=(0, 1))


def test_diag_range_gradients():
    check_grad(lambda x: tf.linalg.diag_part(x, k=(-1, 2)), RNG.normal(size=(3, 4)))
    check_grad(lambda x: tf.linalg.diag_part(x, k=(-2, 0), align="LEFT_RIGHT"), RNG.normal(size=(4, 3)))
    check_grad(lambda d: tf.linalg.diag(d, k=(0, 1)), RNG.normal(size=(2, 3)))
    check_grad(lambda x, d: tf.linalg.set_diag(x, d, k=(-1, 1)), RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)))


def test_qr_gradient_of_wide_matrices():
    wide = RNG.normal(size=(3, 5))
    check_grad(lambda x: tf.linalg.qr(x)[0], wide, atol=1e-6)
    check_grad(lambda x: tf.linalg.qr(x)[1], wide, atol=1e-6)
    check_grad(lambda x: tf.linalg.qr(x, full_matrices=True)[1], RNG.normal(size=(2, 3, 4)), atol=1e-6)
    tall = tf.constant(RNG.normal(size=(5, 3)))
    with tf.GradientTape() as t:
        t.watch(tall)
        r = tf.linalg.qr(tall, full_matrices=True)[1]
    with pytest.raises(NotImplementedError, match="QrGrad not implemented when nrows > ncols and full_matrices"):
        t.gradient(r, tall)


def test_svd_gradient_with_full_matrices():
    # Sign-free functions of the singular vectors (their signs are arbitrary).
    for shape in [(4, 3), (3, 4), (2, 3, 4)]:
        a = RNG.normal(size=shape)
        check_grad(lambda x: tf.abs(tf.linalg.svd(x, full_matrices=True)[1][..., :, :2]), a, atol=1e-6)
        check_grad(lambda x: tf.abs(tf.linalg.svd(x, full_matrices=True)[2][..., :, :2]), a, atol=1e-6)
        check_grad(lambda x: tf.linalg.svd(x, full_matrices=True)[0], a)
    big = tf.constant(RNG.normal(size=(5, 3)))
    with tf.GradientTape() as t:
        t.watch(big)
        s, u, v = tf.linalg.svd(big, full_matrices=True)
    with pytest.raises(NotImplementedError, match=r"svd gradient is not implemented for abs\(m - n\) > 1"):
        t.gradient(u, big)


def test_lu_has_no_gradient():
    x = tf.constant([[4.0, 3.0], [6.0, 3.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        lu, _ = tf.linalg.lu(x)
        y = tf.reduce_sum(lu)
    with pytest.raises(LookupError, match="gradient registry has no entry for: Lu"):
        t.gradient(y, x)


def _check_eig(a, e, v, tol):
    a = np.asarray(a)
    e, v = np.asarray(e), np.asarray(v)
    np.testing.assert_allclose(a.astype(v.dtype) @ v, v * e[..., None, :], rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=tol)
    np.testing.assert_allclose(_sorted(e), _sorted(np.linalg.eigvals(a)), rtol=tol, atol=tol)


def _sorted(e):
    """Eigenvalues in an order insensitive to rounding (real parts rounded, then imaginary parts)."""
    e = np.asarray(e).reshape(-1)
    return e[np.lexsort((np.round(e.imag, 5), np.round(e.real, 5)))]


@pytest.mark.parametrize(
    "dtype, out, tol",
    [
        (np.float32, "complex64", 1e-4),
        (np.float64, "complex128", 1e-10),
        (np.complex64, "complex64", 1e-4),
        (np.complex128, "complex128", 1e-10),
    ],
)
def test_eig_values_vectors_and_order(dtype, out, tol):
    a = RNG.normal(size=(3, 5, 5))
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.normal(size=(3, 5, 5))
    a = a.astype(dtype)
    e, v = tf.linalg.eig(a)
    assert e.dtype.name == out and v.dtype.name == out and e.shape == (3, 5) and v.shape == (3, 5, 5)
    _check_eig(a, e.numpy(), v.numpy(), tol)
    np.testing.assert_allclose(tf.linalg.eigvals(a).numpy(), e.numpy(), rtol=tol, atol=tol)


def test_eig_special_matrices_and_function():
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    e = tf.linalg.eigvals(rot).numpy()
    np.testing.assert_allclose(_sorted(e), [-1j, 1j], atol=1e-7)
    tri = np.triu(RNG.normal(size=(4, 4)))
    _check_eig(tri, *[t.numpy() for t in tf.linalg.eig(tri)], 1e-10)
    sym = RNG.normal(size=(4, 4))
    sym = sym + sym.T
    np.testing.assert_allclose(np.sort(tf.linalg.eigvals(sym).numpy().real), np.linalg.eigvalsh(sym), atol=1e-10)
    # Triangular matrices keep their diagonal's order (TF's eigenvalues are otherwise unordered).
    np.testing.assert_allclose(tf.linalg.eigvals(np.diag([3.0, -1.0, 2.0])).numpy(), [3, -1, 2], atol=1e-12)
    np.testing.assert_allclose(
        tf.linalg.eigvals(np.triu(np.full((3, 3), 5.0)) + np.diag([1.0, -7.0, 2.0])).numpy(), [6, -2, 7], atol=1e-12
    )
    f = tf.function(lambda x: tf.linalg.eig(x))
    e, v = f(tf.constant(RNG.normal(size=(4, 4)).astype(np.float32)))
    assert e.dtype == tf.complex64 and v.shape == (4, 4)
    assert traced_shapes(lambda x: tf.linalg.eig(x), tf.TensorSpec([None, 3, 3])) == [[None, 3], [None, 3, 3]]


def test_eig_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.eig(np.ones((2, 3)))
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        tf.linalg.eigvals(np.ones(3))
    with pytest.raises(UnboundLocalError):
        tf.linalg.eig(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.function(lambda x: tf.linalg.eig(x)).get_concrete_function(tf.TensorSpec([2, 3]))


def _eig_loss(x):
    # Phase- and order-free functions of the decomposition: sums over eigenvalues and |v|^4.
    e, v = tf.linalg.eig(x)
    return tf.reduce_sum(tf.math.real(e * e * e)) + tf.reduce_sum(tf.math.real(v * tf.math.conj(v)) ** 2)


def test_eig_gradients_against_finite_differences():
    a = np.array([[2.0, 1.0, 0.5, 0.0], [0.3, -1.0, 0.2, 0.4], [0.1, 0.6, 3.0, -0.5], [0.7, 0.0, 0.2, 0.5]])
    check_grad(lambda x: tf.reduce_sum(tf.math.real(tf.linalg.eigvals(x) * tf.linalg.eigvals(x))), a, atol=1e-6)
    check_grad(
        lambda x: tf.reduce_sum(tf.math.imag(tf.linalg.eigvals(x) * tf.linalg.eigvals(x) * tf.linalg.eigvals(x))),
        a + [[0, 0, 0, 0], [0, 0, 0, -2.0], [0, 0, 0, 0], [0, 3.0, 0, 0]],
        atol=1e-6,
    )
    check_grad(_eig_loss, a, rtol=1e-4, atol=1e-6)
