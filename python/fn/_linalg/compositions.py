"""``tf.linalg`` functions TensorFlow composes in Python, composed the same way from fn's ops
(so their gradients come from the ops'): ``logdet``, ``cholesky_solve``, ``lstsq``, ``pinv``,
``matrix_rank``, ``trace``, ``matvec``, ``adjoint``, ``cross``, ``tensor_diag(_part)``,
``expm``, ``lu_reconstruct``, ``lu_solve``, ``lu_matrix_inverse``."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    fill,
    gather,
    reshape,
    shape,
    stack,
    transpose,
    where,
)
from fn._linalg.decompositions import band_part, cholesky, diag, diag_part, svd, triangular_solve
from fn._ops.linalg_ops import solve
from fn._ops.manip_ops import eye
from fn._ops.math_ops import abs as _abs
from fn._ops.math_ops import floor, greater, is_finite, less, log, matmul, maximum, pow as _pow, reduce_max, reduce_sum
from fn.dtypes import float16, float32, float64, int32
from fn._ops.sort_ops import argsort
from fn._ops.control_flow_ops import cond, while_loop
from fn._ops.clip_ops import norm


def _t(x: Any) -> Any:
    return x if _core.is_tensor(x) else convert_to_tensor(x)


def _rank(x: Any) -> Optional[int]:
    return x.shape.rank


def adjoint(matrix: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.adjoint``: the conjugate transpose of the last two dimensions."""
    matrix = _t(matrix)
    r = _rank(matrix)
    if r is None:
        raise ValueError("fn.linalg.adjoint needs a tensor of known rank")
    return transpose(matrix, list(range(r - 2)) + [r - 1, r - 2], conjugate=True, name=name or "transpose")


def logdet(matrix: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.logdet``: log-determinant of Hermitian positive-definite matrices, from
    their Cholesky factor."""
    chol = cholesky(_t(matrix))
    return 2.0 * reduce_sum(log(diag_part(chol)), axis=[-1], name=name)


def cholesky_solve(chol: Any, rhs: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.cholesky_solve``: ``X`` with ``A X = rhs`` given ``chol = cholesky(A)``."""
    y = triangular_solve(chol, rhs, adjoint=False, lower=True)
    return triangular_solve(chol, y, adjoint=True, lower=True, name=name)


def _gramian_cholesky(matrix: Any, l2: Any, first_kind: bool) -> Any:
    gram = matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if not (isinstance(l2, (int, float)) and l2 == 0):
        n = shape(gram)[-1]
        gram = gram + convert_to_tensor(l2, matrix.dtype) * eye(n, batch_shape=shape(gram)[:-2], dtype=matrix.dtype)
    return cholesky(gram)


def lstsq(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: Optional[str] = None) -> Any:
    """``tf.linalg.lstsq``: least-squares solutions of ``matrix @ X = rhs``. ``fast`` solves the
    (regularized) normal equations with Cholesky, as TF's composite; ``fast=False`` gives the
    minimum-norm solution (through the pseudo-inverse)."""
    matrix = _t(matrix)
    rhs = _core.convert_to_tensor(rhs, None, matrix.dtype)
    if not fast:
        if not (isinstance(l2_regularizer, (int, float)) and l2_regularizer == 0):
            raise NotImplementedError("fn.linalg.lstsq(fast=False) supports l2_regularizer=0 only")
        return matmul(pinv(matrix), rhs, name=name)
    m, n = matrix.shape[-2], matrix.shape[-1]
    if m is None or n is None:
        raise ValueError("fn.linalg.lstsq needs static matrix dimensions")
    if m >= n:
        chol = _gramian_cholesky(matrix, l2_regularizer, True)
        return cholesky_solve(chol, matmul(matrix, rhs, adjoint_a=True), name=name)
    chol = _gramian_cholesky(matrix, l2_regularizer, False)
    return matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True, name=name)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.pinv``: the Moore-Penrose pseudo-inverse from the SVD; singular values at
    or below ``rcond * max(s)`` count as zero (default ``rcond``: 10 * max(m, n) * eps)."""
    a = _t(a)
    dtype = a.dtype
    if dtype not in (float32, float64):
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {dtype.name}).")
    if rcond is None:
        m, n = a.shape[-2], a.shape[-1]
        if m is not None and n is not None:
            big = convert_to_tensor(float(max(m, n)), dtype)
        else:
            big = cast(reduce_max(shape(a)[-2:]), dtype)
        rcond = 10.0 * big * float(np.finfo(dtype.as_numpy_dtype).eps)
    rcond = _core.convert_to_tensor(rcond, None, dtype)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * reduce_max(s, axis=-1)
    s = where(greater(s, expand_dims(cutoff, -1)), s, fill(shape(s), convert_to_tensor(np.inf, dtype)))
    return matmul(v / expand_dims(s, -2), u, adjoint_b=True, name=name)


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.matrix_rank``: how many singular values exceed ``tol`` (default:
    eps * max(m, n) * max(s))."""
    a = _t(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        m, n = a.shape[-2], a.shape[-1]
        big = (
            convert_to_tensor(float(max(m, n)), a.dtype)
            if m is not None and n is not None
            else cast(reduce_max(shape(a)[-2:]), a.dtype)
        )
        tol = float(np.finfo(a.dtype.as_numpy_dtype).eps) * big * reduce_max(s, axis=-1, keepdims=True)
    else:
        tol = _core.convert_to_tensor(tol, None, a.dtype)
    return reduce_sum(cast(greater(s, tol), int32), axis=-1, name=name)


def trace(x: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.trace``: the sum of each matrix's main diagonal."""
    return reduce_sum(diag_part(_t(x)), axis=[-1], name=name)


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.linalg.matvec``: ``a @ b`` for a batch of vectors ``b``."""
    a = _t(a)
    b = _core.convert_to_tensor(b, None, a.dtype)
    out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return reshape(out, shape(out)[:-1], name=name) if name else out[..., 0]


def cross(a: Any, b: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.cross``: pairwise cross products of 3-vectors (the last dimension)."""
    a = _t(a)
    b = _core.convert_to_tensor(b, None, a.dtype)
    if a.shape[-1] is not None and a.shape[-1] != 3 or b.shape[-1] is not None and b.shape[-1] != 3:
        raise ValueError(f"Dimension must be 3 but is {a.shape[-1] if a.shape[-1] != 3 else b.shape[-1]}")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1, name=name or "Cross")


def tensor_diag(diagonal: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.tensor_diag``: the rank-2k tensor with ``diagonal`` (rank k) on its diagonal."""
    d = _t(diagonal)
    dims = d.shape.as_list()
    if any(x is None for x in dims):
        raise ValueError("fn.linalg.tensor_diag needs a static shape")
    n = int(np.prod(dims)) if dims else 1
    flat = diag(reshape(d, [n]))
    return reshape(flat, dims + dims, name=name)


def tensor_diag_part(input: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.tensor_diag_part``: the diagonal of a rank-2k tensor (shape ``[d..., d...]``)."""
    x = _t(input)
    dims = x.shape.as_list()
    k = len(dims) // 2
    if len(dims) % 2 or dims[:k] != dims[k:] or any(v is None for v in dims):
        raise ValueError(f"Invalid shape {x.shape}: rank must be even and the halves equal")
    n = int(np.prod(dims[:k])) if k else 1
    return reshape(diag_part(reshape(x, [n, n])), dims[:k], name=name)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.lu_reconstruct``: the matrix whose ``lu`` is ``(lower_upper, perm)``."""
    lower_upper = _t(lower_upper)
    perm = _t(perm)
    n = shape(lower_upper)[-1]
    ones = eye(n, batch_shape=shape(lower_upper)[:-2], dtype=lower_upper.dtype)
    lower = band_part(lower_upper, -1, 0) - band_part(lower_upper, 0, 0) + ones
    upper = band_part(lower_upper, 0, -1)
    x = matmul(lower, upper)
    inv = _invert_permutation(perm)
    batch_dims = max(len(perm.shape) - 1, 0)
    return gather(x, inv, axis=-2, batch_dims=batch_dims, name=name)


def _invert_permutation(perm: Any) -> Any:

    return cast(argsort(perm, axis=-1, stable=True), perm.dtype)


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.lu_solve``: ``X`` with ``A X = rhs`` given ``lu(A)``."""
    lower_upper = _t(lower_upper)
    perm = _t(perm)
    rhs = _core.convert_to_tensor(rhs, None, lower_upper.dtype)
    batch_dims = max(len(perm.shape) - 1, 0)
    permuted = gather(rhs, perm, axis=-2, batch_dims=batch_dims)
    n = shape(lower_upper)[-1]
    ones = eye(n, batch_shape=shape(lower_upper)[:-2], dtype=lower_upper.dtype)
    lower = band_part(lower_upper, -1, 0) - band_part(lower_upper, 0, 0) + ones
    y = triangular_solve(lower, permuted, lower=True)
    return triangular_solve(lower_upper, y, lower=False, name=name)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.lu_matrix_inverse``: the inverse of ``A`` given ``lu(A)``."""
    lower_upper = _t(lower_upper)
    n = shape(lower_upper)[-1]
    return lu_solve(lower_upper, perm, eye(n, batch_shape=shape(lower_upper)[:-2], dtype=lower_upper.dtype), name=name)


# ---- expm: scaling and squaring over Pade approximants (TF's linalg_impl.matrix_exponential) ----

_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0],
}
_PADE13 = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
]


def _pade(matrix: Any, order: int) -> tuple:
    """(U, V) of the order-``order`` Pade approximant: U odd powers, V even powers."""
    ident = eye(shape(matrix)[-2], batch_shape=shape(matrix)[:-2], dtype=matrix.dtype)
    m2 = matmul(matrix, matrix)
    if order == 13:
        b = _PADE13
        m4 = matmul(m2, m2)
        m6 = matmul(m4, m2)
        tmp_u = matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
        tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
        return matmul(matrix, tmp_u), matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
    b = _PADE[order]
    powers = [ident, m2]
    for _ in range(order // 2 - 1):
        powers.append(matmul(powers[-1], m2))
    # powers[i] = matrix^(2i); U = matrix (sum b[2i+1] m^(2i)), V = sum b[2i] m^(2i), top coefficient 1.
    tmp = powers[-1]
    for i in range(len(powers) - 2, -1, -1):
        tmp = tmp + b[2 * i + 1] * powers[i]
    v = b[order - 1] * powers[-1]
    for i in range(len(powers) - 2, -1, -1):
        v = v + b[2 * i] * powers[i]
    return matmul(matrix, tmp), v


def expm(input: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.expm``: the matrix exponential (Pade approximants of orders 3-7 for float32,
    3-13 for float64, chosen by the 1-norm, with scaling and squaring)."""

    matrix = _t(input)
    if matrix.shape[-2:].as_list() == [0, 0]:
        return matrix
    if matrix.dtype not in (float16, float32, float64):
        raise ValueError(f"tf.linalg.expm does not support matrices of type {matrix.dtype}")
    out_shape = shape(matrix)
    matrix = reshape(matrix, concat([[-1], shape(matrix)[-2:]], 0))
    l1 = reduce_max(reduce_sum(_abs(matrix), axis=-2), axis=-1)[..., None, None]

    def nest_where(vals: list, cases: list) -> Any:
        if len(vals) == 1:
            return where(less(l1, vals[0]), cases[0], cases[1])
        return where(less(l1, vals[0]), cases[0], nest_where(vals[1:], cases[1:]))

    two = convert_to_tensor(2.0, matrix.dtype)
    if matrix.dtype == float64:
        squarings = maximum(floor(log(l1 / 5.371920351148152) / log(two)), 0.0)
        pades = [_pade(matrix, o) for o in (3, 5, 7, 9)]
        pades.append(_pade(matrix / _pow(two, squarings), 13))
        conds = [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000]
    else:
        squarings = maximum(floor(log(l1 / 3.925724783138660) / log(two)), 0.0)
        pades = [_pade(matrix, 3), _pade(matrix, 5), _pade(matrix / _pow(two, squarings), 7)]
        conds = [4.258730016922831e-001, 1.880152677804762e000]
    u = nest_where(conds, [p[0] for p in pades])
    v = nest_where(conds, [p[1] for p in pades])
    finite = is_finite(reduce_max(l1))
    result = cond(
        finite, lambda: solve(-u + v, u + v), lambda: fill(shape(matrix), convert_to_tensor(np.nan, matrix.dtype))
    )
    max_squarings = reduce_max(squarings)

    def c(i: Any, _: Any) -> Any:
        return cond(finite, lambda: less(i, max_squarings), lambda: convert_to_tensor(False))

    def body(i: Any, r: Any) -> tuple:
        return i + 1, where(less(i, squarings), matmul(r, r), r)

    _, result = while_loop(c, body, [convert_to_tensor(0.0, matrix.dtype), result])
    return reshape(result, out_shape, name=name)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: Optional[str] = None) -> tuple:
    """``tf.linalg.normalize``: ``(tensor / norm, norm)`` with the norm kept as a dimension."""

    tensor = _t(tensor)
    n = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return tensor / n, n


def _tridiagonal_dense(diagonals: Any, diagonals_format: str) -> Any:
    """The dense [..., M, M] matrix of TF's tridiagonal formats: 'compact' ([..., 3, M]: super
    (last ignored), main, sub (first ignored)), 'sequence' (three [..., M] tensors) or 'matrix'."""
    if diagonals_format == "matrix":
        return band_part(_t(diagonals), 1, 1)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        sup, main, sub = [_t(d) for d in diagonals]
    elif diagonals_format == "compact":
        d = _t(diagonals)
        if d.shape.rank is not None and (d.shape.rank < 2 or d.shape[-2] not in (None, 3)):
            raise ValueError(f"Expected diagonals to have shape [..., 3, M], got {d.shape}")
        sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    return diag(sup[..., :-1], k=1) + diag(main) + diag(sub[..., 1:], k=-1)


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact", name: Optional[str] = None) -> Any:
    """``tf.linalg.tridiagonal_matmul``: a tridiagonal matrix times ``rhs`` [..., M, N]."""
    return matmul(_tridiagonal_dense(diagonals, diagonals_format), rhs, name=name)


def tridiagonal_solve(
    diagonals: Any,
    rhs: Any,
    diagonals_format: str = "compact",
    transpose_rhs: bool = False,
    conjugate_rhs: bool = False,
    name: Optional[str] = None,
    partial_pivoting: bool = True,
    perturb_singular: bool = False,
) -> Any:
    """``tf.linalg.tridiagonal_solve``: ``X`` with ``A X = rhs`` for tridiagonal ``A`` (solved
    densely with partial pivoting; ``rhs`` [..., M, K] or [..., M])."""
    if perturb_singular:
        raise NotImplementedError("fn.linalg.tridiagonal_solve does not perturb singular matrices")
    a = _tridiagonal_dense(diagonals, diagonals_format)
    rhs = _core.convert_to_tensor(rhs, None, a.dtype)
    if transpose_rhs:
        rhs = (
            adjoint(rhs)
            if conjugate_rhs
            else transpose(rhs, list(range(rhs.shape.rank - 2)) + [rhs.shape.rank - 1, rhs.shape.rank - 2])
        )
    vector = rhs.shape.rank is not None and a.shape.rank is not None and rhs.shape.rank == a.shape.rank - 1
    x = solve(a, expand_dims(rhs, -1) if vector else rhs)
    return x[..., 0] if vector else x
