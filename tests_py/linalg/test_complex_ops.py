"""Complex tensors in the ops users reach after the guides: Sum / Prod / Mean reductions,
MatMul and BatchMatMulV2 (transpose and adjoint), MatrixSolve (adjoint too), eagerly and in
functions, with gradients, against NumPy; the sum of complex eigenvalues (the guide's case)."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(21)


def cplx(shape, dtype):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(t, want, dtype):
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    assert t.dtype == tf.as_dtype(dtype)
    np.testing.assert_allclose(t.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_reductions(dtype):
    a = cplx([2, 3, 4], dtype)
    x = tf.constant(a)
    close(tf.reduce_sum(x), a.sum(), dtype)
    close(tf.reduce_sum(x, axis=[0, 2]), a.sum(axis=(0, 2)), dtype)
    close(tf.reduce_sum(x, axis=1, keepdims=True), a.sum(axis=1, keepdims=True), dtype)
    close(tf.reduce_prod(x, axis=2), a.prod(axis=2), dtype)
    close(tf.reduce_mean(x, axis=0), a.mean(axis=0), dtype)
    close(tf.reduce_mean(x), a.mean(), dtype)
    close(tf.math.reduce_sum(tf.zeros([0, 2], dtype)), np.zeros(2, dtype).sum(), dtype)
    close(tf.function(lambda t: tf.reduce_sum(t, -1))(x), a.sum(-1), dtype)
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.reduce_max(x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_matmul(dtype):
    a, b = cplx([3, 4], dtype), cplx([4, 2], dtype)
    close(tf.matmul(a, b), a @ b, dtype)
    close(tf.matmul(a.T, b, transpose_a=True), a @ b, dtype)
    close(tf.matmul(a.conj().T, b, adjoint_a=True), a @ b, dtype)
    close(tf.matmul(a, b.conj().T, adjoint_b=True), a @ b, dtype)
    close(tf.linalg.matmul(a, b.T, transpose_b=True), a @ b, dtype)
    ba, bb = cplx([2, 3, 4], dtype), cplx([4, 5], dtype)
    close(tf.matmul(ba, bb), ba @ bb, dtype)
    close(tf.matmul(np.swapaxes(ba, 1, 2), bb, transpose_a=True), ba @ bb, dtype)
    close(tf.matmul(np.swapaxes(ba, 1, 2).conj(), bb, adjoint_a=True), ba @ bb, dtype)
    close(tf.matmul(ba, bb.conj().T, adjoint_b=True), ba @ bb, dtype)
    close(tf.constant(ba) @ tf.constant(bb), ba @ bb, dtype)
    close(tf.function(lambda x, y: tf.matmul(x, y, adjoint_b=True))(a, b.conj().T), a @ b, dtype)
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        tf.matmul(a, a)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_matmul_gradient(dtype):
    a, b, c = tf.constant(cplx([2, 3], dtype)), tf.constant(cplx([3, 2], dtype)), tf.constant(cplx([2, 3], dtype))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = tf.reduce_sum(tf.matmul(a, b))
        y2 = tf.reduce_sum(tf.matmul(tf.stack([a, a]), c, adjoint_b=True))
    ga, gb = tape.gradient(y, [a, b])
    ones = np.ones([2, 2], dtype)
    close(ga, ones @ b.numpy().conj().T, dtype)  # TF's _MatMulGrad: grad @ conj(b)^T
    close(gb, a.numpy().conj().T @ ones, dtype)
    ga2 = tape.gradient(y2, a)
    close(ga2, 2 * (np.ones([2, 2], dtype) @ c.numpy()), dtype)  # BatchMatMulV2's grad: grad @ c


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_solve(dtype):
    m = cplx([2, 3, 3], dtype) + 3 * np.eye(3, dtype=dtype)
    rhs = cplx([2, 3, 2], dtype)
    close(tf.linalg.solve(m, rhs), np.linalg.solve(m, rhs), dtype)
    close(tf.linalg.solve(m, rhs, adjoint=True), np.linalg.solve(np.swapaxes(m, 1, 2).conj(), rhs), dtype)
    close(tf.function(tf.linalg.solve)(m, rhs), np.linalg.solve(m, rhs), dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible"):
        tf.linalg.solve(np.zeros([2, 2], dtype), np.ones([2, 1], dtype))


def test_solve_gradient():
    m = tf.constant(cplx([3, 3], np.complex128) + 3 * np.eye(3))
    rhs = tf.constant(cplx([3, 1], np.complex128))
    with tf.GradientTape() as tape:
        tape.watch([m, rhs])
        y = tf.reduce_sum(tf.linalg.solve(m, rhs))
    gm, gr = tape.gradient(y, [m, rhs])
    # TF's _MatrixSolveGrad: grad_rhs = solve(m^H, ones), grad_m = -grad_rhs @ x^H
    x = np.linalg.solve(m.numpy(), rhs.numpy())
    want_r = np.linalg.solve(m.numpy().conj().T, np.ones([3, 1]))
    close(gr, want_r, np.complex128)
    close(gm, -want_r @ x.conj().T, np.complex128)


def test_sum_of_eigenvalues():
    m = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, 0.0], [0.0, 1.0, 1.0]])
    e = tf.linalg.eigvals(m)
    s = tf.reduce_sum(e)
    assert s.dtype == tf.complex128
    np.testing.assert_allclose(s.numpy(), np.trace(m), atol=1e-12)
    np.testing.assert_allclose(tf.reduce_prod(e).numpy(), np.linalg.det(m), atol=1e-12)


def others_product(a, axis):
    """Per element, the product of the other elements along `axis` (no division: zeros are fine)."""
    a = np.moveaxis(a, axis, -1)
    out = np.empty_like(a)
    for i in range(a.shape[-1]):
        out[..., i] = np.prod(np.delete(a, i, axis=-1), axis=-1)
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_gradient(dtype, zeros):
    # TF's _ProdGrad: the upstream gradient times the conjugate of the product of the others
    a = cplx([2, 4], dtype)
    a[0, :zeros] = 0
    a[1, 1:1 + zeros] = 0
    w = cplx([2], dtype)
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=1)
    g = tape.gradient(y, x, output_gradients=tf.constant(w))
    close(g, np.conj(others_product(a, 1)) * w[:, None], dtype)

    @tf.function
    def in_function(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_prod(x)
        return tape.gradient(y, x)

    close(in_function(x), np.conj(others_product(a.reshape(-1), 0)).reshape(a.shape), dtype)
