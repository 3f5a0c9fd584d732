"""``tf.linalg`` functions that are one C++ op each (cpp/ops/linalg_decomp.cpp, linalg_eig.cpp):
decompositions (``cholesky``, ``qr``, ``svd``, ``eigh``, ``lu``, ``slogdet``), the triangular
solver and the band/diagonal ops, with TF's argument conventions and output order."""

from __future__ import annotations

import collections
from typing import Any, Optional

from fn import _core
from fn._ops.op_call import run_op, run_op_outputs
from fn._ops.array_ops import convert_to_tensor
from fn.dtypes import as_dtype, complex64, complex128, float32, float64, int32, int64

Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def _t(x: Any) -> Any:
    return x if _core.is_tensor(x) else convert_to_tensor(x)


def cholesky(input: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.cholesky``: the lower-triangular ``L`` with ``L @ L^H = input`` (the input's
    lower triangle is read; ``InvalidArgumentError`` when it is not positive definite)."""
    return run_op("Cholesky", [_t(input)], None, name)


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: Optional[str] = None
) -> Any:
    """``tf.linalg.triangular_solve``: ``X`` with ``matrix @ X = rhs`` for triangular ``matrix``
    (only its ``lower`` or upper triangle is read); batch dimensions broadcast."""
    matrix = _t(matrix)
    rhs = _core.convert_to_tensor(rhs, None, matrix.dtype)
    return run_op("MatrixTriangularSolve", [matrix, rhs], {"lower": bool(lower), "adjoint": bool(adjoint)}, name)


def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None) -> Qr:
    """``tf.linalg.qr``: ``(q, r)`` with orthonormal ``q`` and upper-triangular ``r``."""
    q, r = run_op_outputs("Qr", [_t(input)], {"full_matrices": bool(full_matrices)}, name)
    return Qr(q, r)


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: Optional[str] = None) -> Any:
    """``tf.linalg.svd``: ``s`` (descending) or ``(s, u, v)`` with ``tensor = u diag(s) v^H``."""
    attrs = {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)}
    s, u, v = run_op_outputs("Svd", [_t(tensor)], attrs, name)
    return (s, u, v) if compute_uv else s


def eigh(tensor: Any, name: Optional[str] = None) -> tuple:
    """``tf.linalg.eigh``: ascending eigenvalues and eigenvectors (columns) of self-adjoint
    matrices (their lower triangles are read)."""
    e, v = run_op_outputs("SelfAdjointEigV2", [_t(tensor)], {"compute_v": True}, name)
    return e, v


def eigvalsh(tensor: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.eigvalsh``: the ascending eigenvalues of self-adjoint matrices."""
    return run_op("SelfAdjointEigV2", [_t(tensor)], {"compute_v": False}, name)


def _eig_out_dtype(tensor: Any) -> Any:
    if tensor.dtype in (float32, complex64):
        return complex64
    if tensor.dtype in (float64, complex128):
        return complex128
    # TF's eig/eigvals leave out_dtype unbound for other dtypes (its UnboundLocalError).
    raise UnboundLocalError("cannot access local variable 'out_dtype' where it is not associated with a value")


def eig(tensor: Any, name: Optional[str] = None) -> tuple:
    """``tf.linalg.eig``: eigenvalues and right eigenvectors (unit columns) of general square
    matrices, complex64 for float32/complex64 input and complex128 otherwise, ordered by
    increasing magnitude (TF's kernel); eigenvector phases are unspecified, as in TF."""
    x = _t(tensor)
    e, v = run_op_outputs("Eig", [x], {"Tout": _eig_out_dtype(x), "compute_v": True}, name)
    return e, v


def eigvals(tensor: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.eigvals``: the eigenvalues of general square matrices (as ``eig``'s)."""
    x = _t(tensor)
    return run_op_outputs("Eig", [x], {"Tout": _eig_out_dtype(x), "compute_v": False}, name)[0]


def slogdet(input: Any, name: Optional[str] = None) -> LogMatrixDeterminant:
    """``tf.linalg.slogdet``: ``(sign, log|det|)`` of square matrices."""
    sign, logabs = run_op_outputs("LogMatrixDeterminant", [_t(input)], None, name)
    return LogMatrixDeterminant(sign, logabs)


def lu(input: Any, output_idx_type: Any = int32, name: Optional[str] = None) -> Lu:
    """``tf.linalg.lu``: packed ``L`` (unit lower, implied diagonal) and ``U`` with the row
    permutation ``p``: ``input[p] = L @ U``."""
    idx = as_dtype(output_idx_type)
    if idx not in (int32, int64):
        raise TypeError(
            f"Value passed to parameter 'output_idx_type' has DataType {idx.name} not in list of "
            f"allowed values: int32, int64"
        )
    lu_, p = run_op_outputs("Lu", [_t(input)], {"output_idx_type": idx}, name)
    return Lu(lu_, p)


def band_part(input: Any, num_lower: Any, num_upper: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.band_part``: zeros outside ``num_lower`` subdiagonals and ``num_upper``
    superdiagonals (negative: keep the whole triangle)."""

    def idx(v: Any) -> Any:
        return v if _core.is_tensor(v) else convert_to_tensor(v, int64)

    return run_op("MatrixBandPart", [_t(input), idx(num_lower), idx(num_upper)], None, name)


def _k(k: Any) -> Any:
    return k if _core.is_tensor(k) else convert_to_tensor(k, int32)


_ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _check_align(align: str) -> None:
    if align not in _ALIGNS:
        raise ValueError(
            f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
            + ", ".join(f'"{a}"' for a in _ALIGNS)
        )


def diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Any:
    """``tf.linalg.diag``: matrices with ``diagonal`` on diagonal ``k`` (one diagonal)."""
    _check_align(align)
    diagonal = _t(diagonal)
    pad = _core.convert_to_tensor(padding_value, None, diagonal.dtype)
    return run_op(
        "MatrixDiagV3",
        [diagonal, _k(k), convert_to_tensor(num_rows, int32), convert_to_tensor(num_cols, int32), pad],
        {"align": align},
        name,
    )


def diag_part(
    input: Any, name: str = "diag_part", k: Any = 0, padding_value: Any = 0, align: str = "RIGHT_LEFT"
) -> Any:
    """``tf.linalg.diag_part``: diagonal ``k`` of each matrix."""
    _check_align(align)
    x = _t(input)
    pad = _core.convert_to_tensor(padding_value, None, x.dtype)
    return run_op("MatrixDiagPartV3", [x, _k(k), pad], {"align": align}, name)


def set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0, align: str = "RIGHT_LEFT") -> Any:
    """``tf.linalg.set_diag``: ``input`` with diagonal ``k`` replaced by ``diagonal``."""
    _check_align(align)
    x = _t(input)
    d = _core.convert_to_tensor(diagonal, None, x.dtype)
    return run_op("MatrixSetDiagV3", [x, d, _k(k)], {"align": align}, name)
