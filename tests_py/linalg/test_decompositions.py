"""tf.linalg decompositions (cholesky, qr, svd, eigh, lu, slogdet), triangular_solve and the
band/diagonal ops: values against NumPy/LAPACK (TF's conventions: QR signs of Householder,
ascending eigenvalues, descending singular values, lu's permutation), batches, float32/64,
static shapes in functions, gradients against finite differences, and TF's errors. The same
file passes under TensorFlow (--against-tf)."""
import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(0)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
TALL = RNG.normal(size=(5, 3))
WIDE = RNG.normal(size=(3, 5))
BATCH = RNG.normal(size=(2, 3, 3, 3))


def spd_batch(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1])


def test_cholesky_values_batches_dtypes():
    np.testing.assert_allclose(tf.linalg.cholesky(SPD).numpy(), np.linalg.cholesky(SPD), rtol=1e-10)
    b = spd_batch(BATCH)
    out = tf.linalg.cholesky(tf.constant(b, tf.float32))
    assert out.dtype == tf.float32 and out.shape == (2, 3, 3, 3)
    np.testing.assert_allclose(out.numpy(), np.linalg.cholesky(b), rtol=1e-5, atol=1e-6)
    # Only the lower triangle is read.
    np.testing.assert_allclose(tf.linalg.cholesky(np.tril(SPD)).numpy(), np.linalg.cholesky(SPD), rtol=1e-10)
    # Not positive definite: TF 2.21 fills the lower triangle with NaN (and logs a warning).
    bad = tf.linalg.cholesky([[1., 2.], [2., 1.]]).numpy()
    assert np.isnan(bad[np.tril_indices(2)]).all()
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        tf.linalg.cholesky(tf.ones([2, 3]))
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        tf.linalg.cholesky(tf.ones([3]))


def test_qr_matches_lapack_signs():
    for m in (A, TALL, WIDE):
        q, r = tf.linalg.qr(m)
        nq, nr = np.linalg.qr(m)
        np.testing.assert_allclose(q.numpy(), nq, atol=1e-10)
        np.testing.assert_allclose(r.numpy(), nr, atol=1e-10)
    q, r = tf.linalg.qr(TALL, full_matrices=True)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    nq, nr = np.linalg.qr(TALL, mode="complete")
    np.testing.assert_allclose(q.numpy(), nq, atol=1e-10)
    np.testing.assert_allclose(r.numpy(), nr, atol=1e-10)
    qb, rb = tf.linalg.qr(tf.constant(BATCH, tf.float32))
    np.testing.assert_allclose((qb @ rb).numpy(), BATCH, atol=1e-5)
    assert traced_shapes(lambda x: tf.linalg.qr(x), tf.TensorSpec([None, 6, 4])) == [[None, 6, 4], [None, 4, 4]]


def test_eigh_and_eigvalsh():
    e, v = tf.linalg.eigh(SPD)
    ne, nv = np.linalg.eigh(SPD)
    np.testing.assert_allclose(e.numpy(), ne, rtol=1e-10)
    # Eigenvectors are defined up to sign.
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(nv), atol=1e-8)
    np.testing.assert_allclose(tf.linalg.eigvalsh(SPD).numpy(), ne, rtol=1e-10)
    sym = (BATCH + np.swapaxes(BATCH, -1, -2)) / 2
    eb, vb = tf.linalg.eigh(tf.constant(sym, tf.float32))
    np.testing.assert_allclose(eb.numpy(), np.linalg.eigvalsh(sym), atol=1e-5)
    recon = vb.numpy() @ (eb.numpy()[..., None] * np.swapaxes(vb.numpy(), -1, -2))
    np.testing.assert_allclose(recon, sym, atol=1e-5)
    assert traced_shapes(tf.linalg.eigh, tf.TensorSpec([3, 5, 5])) == [[3, 5], [3, 5, 5]]


def test_svd_conventions():
    for m in (A, TALL, WIDE):
        s, u, v = tf.linalg.svd(m)
        ns = np.linalg.svd(m, compute_uv=False)
        np.testing.assert_allclose(s.numpy(), ns, rtol=1e-10)
        k = min(m.shape)
        assert u.shape == (m.shape[0], k) and v.shape == (m.shape[1], k)
        np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, m, atol=1e-10)
        np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(k), atol=1e-10)
    s, u, v = tf.linalg.svd(WIDE, full_matrices=True)
    assert u.shape == (3, 3) and v.shape == (5, 5)
    np.testing.assert_allclose(v.numpy().T @ v.numpy(), np.eye(5), atol=1e-10)
    only = tf.linalg.svd(tf.constant(BATCH, tf.float32), compute_uv=False)
    np.testing.assert_allclose(only.numpy(), np.linalg.svd(BATCH, compute_uv=False), rtol=1e-5)
    # Rank-deficient input: singular values 0, u still orthonormal.
    s, u, _ = tf.linalg.svd(np.outer([1., 2., 3.], [1., 1.]))
    np.testing.assert_allclose(s.numpy()[1], 0, atol=1e-12)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(2), atol=1e-10)
    assert traced_shapes(lambda x: tf.linalg.svd(x), tf.TensorSpec([None, 4, 6])) == \
        [[None, 4], [None, 4, 4], [None, 6, 4]]


def test_lu_and_slogdet():
    lu, p = tf.linalg.lu(A)
    assert p.dtype == tf.int32
    lower = np.tril(lu.numpy(), -1) + np.eye(4)
    upper = np.triu(lu.numpy())
    np.testing.assert_allclose(A[p.numpy()], lower @ upper, atol=1e-12)
    # Partial pivoting: the largest remaining entry of each column is the pivot.
    assert p.numpy()[0] == np.argmax(np.abs(A[:, 0]))
    np.testing.assert_allclose(tf.linalg.lu_reconstruct(lu, p).numpy(), A, atol=1e-12)
    np.testing.assert_allclose(tf.linalg.lu_solve(lu, p, np.eye(4)).numpy(), np.linalg.inv(A), atol=1e-10)
    assert tf.linalg.lu(A, output_idx_type=tf.int64).p.dtype == tf.int64
    sign, logabs = tf.linalg.slogdet(BATCH)
    nsign, nlog = np.linalg.slogdet(BATCH)
    np.testing.assert_allclose(sign.numpy(), nsign)
    np.testing.assert_allclose(logabs.numpy(), nlog, rtol=1e-10)


def test_triangular_solve():
    low = np.tril(A) + 4 * np.eye(4)
    rhs = RNG.normal(size=(4, 2))
    np.testing.assert_allclose(tf.linalg.triangular_solve(low, rhs).numpy(), np.linalg.solve(low, rhs), rtol=1e-10)
    up = np.triu(A) + 4 * np.eye(4)
    np.testing.assert_allclose(tf.linalg.triangular_solve(up, rhs, lower=False).numpy(), np.linalg.solve(up, rhs),
                               rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.triangular_solve(low, rhs, adjoint=True).numpy(),
                               np.linalg.solve(low.T, rhs), rtol=1e-10)
    # Only the named triangle is read; batch dimensions broadcast.
    np.testing.assert_allclose(tf.linalg.triangular_solve(low + np.triu(A, 1), rhs).numpy(),
                               np.linalg.solve(low, rhs), rtol=1e-10)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] mismatch In\[1\] shape: 3 vs. 2"):
        tf.linalg.triangular_solve(tf.eye(3), tf.ones([2, 1]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        tf.function(lambda: tf.linalg.triangular_solve(tf.eye(3), tf.ones([2, 1])))()
    out = tf.linalg.triangular_solve(np.stack([low, 2 * low]), rhs)
    assert out.shape == (2, 4, 2)
    np.testing.assert_allclose(out.numpy()[1], np.linalg.solve(2 * low, rhs), rtol=1e-10)


def test_band_and_diagonals():
    x = np.arange(1., 13.).reshape(3, 4)
    np.testing.assert_array_equal(tf.linalg.band_part(x, 1, 0).numpy(), np.tril(np.triu(x, -1)))
    np.testing.assert_array_equal(tf.linalg.band_part(x, -1, 0).numpy(), np.tril(x))
    np.testing.assert_array_equal(tf.linalg.band_part(x, 0, -1).numpy(), np.triu(x))
    np.testing.assert_array_equal(tf.linalg.diag_part(x).numpy(), [1., 6., 11.])
    np.testing.assert_array_equal(tf.linalg.diag_part(x, k=1).numpy(), [2., 7., 12.])
    np.testing.assert_array_equal(tf.linalg.diag_part(x, k=-1).numpy(), [5., 10.])
    np.testing.assert_array_equal(tf.linalg.diag([1, 2]).numpy(), [[1, 0], [0, 2]])
    np.testing.assert_array_equal(tf.linalg.diag([1., 2.], k=1).numpy(), [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    np.testing.assert_array_equal(tf.linalg.diag([1., 2.], num_rows=3, num_cols=2, padding_value=9).numpy(),
                                  [[1, 9], [9, 2], [9, 9]])
    np.testing.assert_array_equal(tf.linalg.set_diag(x, [0., 0., 0.]).numpy(),
                                  np.where(np.eye(3, 4, dtype=bool), 0., x))
    np.testing.assert_array_equal(tf.linalg.set_diag(x, [7., 7., 7.], k=1).numpy(),
                                  np.where(np.eye(3, 4, k=1, dtype=bool), 7., x))
    np.testing.assert_array_equal(tf.linalg.diag(np.ones((2, 3))).shape, (2, 3, 3))
    assert tf.linalg.trace(x[:, :3]).numpy() == 1. + 6. + 11.
    np.testing.assert_array_equal(tf.linalg.tensor_diag([1., 2.]).numpy(), [[1, 0], [0, 2]])
    assert tf.linalg.tensor_diag_part([[1., 5.], [6., 2.]]).numpy().tolist() == [1., 2.]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"num_lower must be negative or less or equal to "
                                                              r"number of rows \(3\) got: 5"):
        tf.linalg.band_part(x, 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected diagonal shape: \[3\]"):
        tf.linalg.set_diag(tf.ones([3, 3]), tf.ones([2]))


def test_compositions():
    np.testing.assert_allclose(tf.linalg.logdet(SPD).numpy(), np.linalg.slogdet(SPD)[1], rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.pinv(TALL).numpy(), np.linalg.pinv(TALL), atol=1e-10)
    np.testing.assert_allclose(tf.linalg.pinv(tf.constant(WIDE, tf.float32)).numpy(), np.linalg.pinv(WIDE), atol=1e-5)
    assert tf.linalg.matrix_rank(np.outer([1., 2., 3.], [1., 1., 2.])).numpy() == 1
    assert tf.linalg.matrix_rank(A).numpy() == 4
    rhs = RNG.normal(size=(5, 2))
    np.testing.assert_allclose(tf.linalg.lstsq(TALL, rhs).numpy(), np.linalg.lstsq(TALL, rhs, rcond=None)[0],
                               rtol=1e-8)
    np.testing.assert_allclose(tf.linalg.lstsq(TALL, rhs, fast=False).numpy(),
                               np.linalg.lstsq(TALL, rhs, rcond=None)[0], rtol=1e-8)
    w = RNG.normal(size=(3, 2))
    np.testing.assert_allclose(tf.linalg.lstsq(WIDE, w).numpy(), np.linalg.lstsq(WIDE, w, rcond=None)[0], rtol=1e-8)
    chol = np.linalg.cholesky(SPD)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(chol, rhs[:4]).numpy(), np.linalg.solve(SPD, rhs[:4]),
                               rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.matvec(A, np.array([1., 2., 3., 4.])).numpy(), A @ [1., 2., 3., 4.],
                               rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.cross([1., 0., 0.], [0., 1., 0.]).numpy(), [0., 0., 1.])
    np.testing.assert_allclose(tf.linalg.adjoint(WIDE).numpy(), WIDE.T)


def sp_expm(m):
    """exp(m) by a 30-term Taylor series after scaling by 2^-s, then s squarings (float64)."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(m).sum(0).max(), 1e-300))))) + 4
    x = m / 2.0 ** s
    term, out = np.eye(len(m)), np.eye(len(m))
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def test_expm():
    for m in (0.1 * A, A, 5 * A):
        np.testing.assert_allclose(tf.linalg.expm(m).numpy(), sp_expm(m), rtol=1e-9, atol=1e-9)
    got = tf.linalg.expm(tf.constant(BATCH, tf.float32)).numpy()
    np.testing.assert_allclose(got, np.stack([[sp_expm(b) for b in bb] for bb in BATCH]), rtol=1e-4, atol=1e-4)


def test_in_function():
    @tf.function
    def f(x):
        q, r = tf.linalg.qr(x)
        s = tf.linalg.svd(x, compute_uv=False)
        return tf.linalg.cholesky(tf.matmul(x, x, transpose_a=True) + tf.eye(3, dtype=x.dtype)), q @ r, s

    c, qr_, s = f(tf.constant(TALL))
    np.testing.assert_allclose(c.numpy(), np.linalg.cholesky(TALL.T @ TALL + np.eye(3)), rtol=1e-10)
    np.testing.assert_allclose(qr_.numpy(), TALL, atol=1e-10)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(TALL, compute_uv=False), rtol=1e-10)


def sym(x):
    return (x + tf.linalg.adjoint(x)) / 2


def test_gradients_against_finite_differences():
    check_grad(lambda x: tf.linalg.cholesky(sym(x) + 8 * tf.eye(4, dtype=x.dtype)), A, rtol=1e-5)
    check_grad(lambda x: tf.linalg.logdet(sym(x) + 8 * tf.eye(4, dtype=x.dtype)), A)
    check_grad(lambda x: tf.linalg.slogdet(x)[1], A)
    check_grad(lambda a, b: tf.linalg.triangular_solve(a + 4 * tf.eye(4, dtype=a.dtype), b), np.tril(A),
               RNG.normal(size=(4, 2)), wrt=[1])
    check_grad(lambda a: tf.linalg.triangular_solve(tf.linalg.band_part(a, -1, 0) + 4 * tf.eye(4, dtype=a.dtype),
                                                    tf.ones([4, 2], a.dtype)), A)
    check_grad(lambda x: tf.linalg.qr(x)[0], TALL, atol=1e-6)
    check_grad(lambda x: tf.linalg.qr(x)[1], A, atol=1e-6)
    check_grad(lambda x: tf.linalg.eigh(sym(x))[0], A)
    # Eigenvector signs are arbitrary: differentiate a sign-free function of them.
    check_grad(lambda x: tf.abs(tf.linalg.eigh(sym(x))[1]), A, atol=1e-6)
    check_grad(lambda x: tf.linalg.svd(x, compute_uv=False), TALL)
    check_grad(lambda x: tf.abs(tf.linalg.svd(x)[1]), TALL, atol=1e-6)
    check_grad(lambda x: tf.abs(tf.linalg.svd(x)[2]), WIDE, atol=1e-6)
    check_grad(lambda x: tf.linalg.band_part(x, 1, 0), A)
    check_grad(lambda x: tf.linalg.diag_part(x, k=1), TALL)
    check_grad(lambda x: tf.linalg.diag(x), np.array([1., 2., 3.]))
    check_grad(lambda x, d: tf.linalg.set_diag(x, d), A, np.array([1., 2., 3., 4.]))
    check_grad(lambda x: tf.linalg.pinv(x), TALL, atol=1e-6)
    check_grad(lambda x: tf.linalg.expm(x), 0.5 * A, rtol=1e-4, atol=1e-6)


def test_normalize_and_tridiagonal():
    x, n = tf.linalg.normalize(np.array([[3., 4.], [6., 8.]]), axis=-1)
    np.testing.assert_allclose(x.numpy(), [[0.6, 0.8], [0.6, 0.8]])
    np.testing.assert_allclose(n.numpy(), [[5.], [10.]])
    sup, main, sub = np.array([1., 2., 3., 0.]), np.array([4., 5., 6., 7.]), np.array([0., 8., 9., 10.])
    dense = np.diag(main) + np.diag(sup[:-1], 1) + np.diag(sub[1:], -1)
    rhs = RNG.normal(size=(4, 2))
    want = np.linalg.solve(dense, rhs)
    rhs_t = tf.constant(rhs)
    compact = tf.constant(np.stack([sup, main, sub]))   # TF's solver reads .shape.rank: tensors, not arrays
    np.testing.assert_allclose(tf.linalg.tridiagonal_matmul(compact, rhs).numpy(), dense @ rhs, rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(compact, rhs_t).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(
        tf.linalg.tridiagonal_solve((tf.constant(sup), tf.constant(main), tf.constant(sub)), rhs_t,
                                    diagonals_format="sequence").numpy(), want, rtol=1e-10)
    from_matrix = tf.linalg.tridiagonal_solve(tf.constant(dense), rhs_t, diagonals_format="matrix")
    np.testing.assert_allclose(from_matrix.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(compact, tf.constant(rhs[:, 0])).numpy(),
                               np.linalg.solve(dense, rhs[:, 0]), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(compact, tf.constant(rhs.T), transpose_rhs=True).numpy(),
                               want, rtol=1e-10)
    check_grad(lambda d, b: tf.linalg.tridiagonal_solve(d, b), compact.numpy(), rhs)
