"""``tf.math`` names TF has and fn lacked (issue 22: the ones Keras' TensorFlow backend calls),
composed of fn's kernels with TF's formulas (so gradients follow), plus ``tf.linalg.qr`` (for
Keras' orthogonal initializer) computed on the host with LAPACK as TF's CPU kernel does."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np


def _t(x: Any) -> Any:
    import fn
    return fn.convert_to_tensor(x)


def sinh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.sinh``."""
    import fn
    x = _t(x)
    return (fn.exp(x) - fn.exp(-x)) / 2


def cosh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.cosh``."""
    import fn
    x = _t(x)
    return (fn.exp(x) + fn.exp(-x)) / 2


def tan(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.tan``."""
    import fn
    x = _t(x)
    return fn.sin(x) / fn.cos(x)


def atan(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.atan``."""
    import fn
    x = _t(x)
    return fn.math.atan2(x, fn.ones_like(x))


def asin(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.asin`` (NaN outside [-1, 1])."""
    import fn
    x = _t(x)
    return fn.math.atan2(x, fn.sqrt(1 - x * x))


def acos(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.acos`` (NaN outside [-1, 1])."""
    import fn
    x = _t(x)
    return fn.math.atan2(fn.sqrt(1 - x * x), x)


def asinh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.asinh`` (odd, accurate for large |x|)."""
    import fn
    x = _t(x)
    a = fn.abs(x)
    return fn.sign(x) * fn.math.log(a + fn.sqrt(a * a + 1))


def acosh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.acosh`` (NaN below 1)."""
    import fn
    x = _t(x)
    return fn.math.log(x + fn.sqrt(x * x - 1))


def atanh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.atanh``."""
    import fn
    x = _t(x)
    return 0.5 * (fn.math.log1p(x) - fn.math.log1p(-x))


def expm1(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.expm1``: exp(x) - 1, with x + x^2/2 + x^3/6 near 0 where exp(x) - 1 cancels."""
    import fn
    x = _t(x)
    small = fn.abs(x) < 1e-5
    return fn.where(small, x + x * x / 2 + x * x * x / 6, fn.exp(x) - 1)


def erfc(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.erfc``: 1 - erf(x)."""
    import fn
    return 1 - fn.math.erf(_t(x))


def angle(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002
    """``tf.math.angle``: atan2(imag, real); 0 (or pi for negatives) for real inputs."""
    import fn
    x = _t(input)
    if x.dtype.is_complex:
        return fn.math.atan2(fn.math.imag(x), fn.math.real(x))
    return fn.where(x < 0, fn.constant(np.pi, x.dtype), fn.zeros_like(x))


def in_top_k(targets: Any, predictions: Any, k: int, name: Optional[str] = None) -> Any:
    """``tf.math.in_top_k``: whether ``targets[i]`` is among the top ``k`` of ``predictions[i]``
    (ties count as in, as TF's kernel)."""
    import fn
    predictions = _t(predictions)
    targets = fn.cast(_t(targets), fn.int32)
    target_vals = fn.gather(predictions, targets, axis=1, batch_dims=1)
    larger = fn.reduce_sum(fn.cast(predictions > fn.expand_dims(target_vals, 1), fn.int32), axis=1)
    finite = fn.math.is_finite(target_vals)
    return fn.logical_and(larger < k, finite)


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = None, name: Optional[str] = None, axis: Any = None, binary_output: bool = False) -> Any:
    """``tf.math.bincount`` (1-D, or per row with ``axis=-1``)."""
    import fn
    arr = fn.cast(_t(arr), fn.int32)
    dtype = fn.as_dtype(dtype or (weights.dtype if weights is not None and hasattr(weights, "dtype") else fn.int32))
    size = fn.maximum(fn.reduce_max(arr) + 1, 0) if arr.shape.num_elements() != 0 else fn.constant(0)
    if minlength is not None:
        size = fn.maximum(size, minlength)
    if maxlength is not None:
        size = fn.minimum(size, maxlength)
    w = fn.ones_like(arr, dtype) if weights is None else fn.cast(_t(weights), dtype)
    keep = arr < size
    if axis == -1 and arr.shape.rank == 2:
        rows = fn.shape(arr)[0]
        ids = arr + fn.expand_dims(fn.range(rows) * size, 1)
        ids = fn.where(keep, ids, -fn.ones_like(ids))
        out = fn.math.unsorted_segment_sum(fn.where(keep, w, fn.zeros_like(w)), fn.maximum(ids, 0), rows * size)
        out = fn.reshape(out, fn.stack([rows, size]))
    else:
        flat, fw = fn.reshape(arr, [-1]), fn.reshape(w, [-1])
        fk = fn.reshape(keep, [-1])
        out = fn.math.unsorted_segment_sum(fn.where(fk, fw, fn.zeros_like(fw)), fn.where(fk, flat, fn.zeros_like(flat)), size)
    if binary_output:
        out = fn.cast(out > 0, dtype)
    return out


def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None) -> Any:  # noqa: A002
    """``tf.linalg.qr``: (q, r) of each matrix, LAPACK's Householder QR (no gradient here)."""
    import fn
    from collections import namedtuple
    from fn._tf_compat._array_extra import _host_op
    x = _t(input)
    shape = x.shape
    m, n = shape[-2], shape[-1]
    k = None if m is None or n is None else (m if full_matrices else min(m, n))
    mode = "complete" if full_matrices else "reduced"
    q = _host_op(lambda a: np.linalg.qr(a, mode=mode)[0], [x], x.dtype, shape[:-1].concatenate([k]), "Qr")
    r = _host_op(lambda a: np.linalg.qr(a, mode=mode)[1], [x], x.dtype,
                 shape[:-2].concatenate([k, n]), "Qr")
    return namedtuple("Qr", ["q", "r"])(q, r)


def _band_mask(m: Any, n: Any, lower: Any, upper: Any) -> Any:
    import fn
    i = fn.expand_dims(fn.range(m), 1)
    j = fn.expand_dims(fn.range(n), 0)
    keep = fn.ones_like(i - j, fn.bool)
    if lower is not None:
        keep = fn.logical_and(keep, i - j <= lower)
    if upper is not None:
        keep = fn.logical_and(keep, j - i <= upper)
    return keep


def band_part(input: Any, num_lower: Any, num_upper: Any, name: Optional[str] = None) -> Any:  # noqa: A002
    """``tf.linalg.band_part``: keeps ``num_lower`` subdiagonals and ``num_upper`` superdiagonals
    (negative: all of them)."""
    import fn
    x = _t(input)
    s = fn.shape(x)
    lo = None if isinstance(num_lower, int) and num_lower < 0 else num_lower
    up = None if isinstance(num_upper, int) and num_upper < 0 else num_upper
    if fn.is_tensor(num_lower):
        lo = fn.where(num_lower < 0, fn.cast(s[-2], num_lower.dtype), num_lower)
    if fn.is_tensor(num_upper):
        up = fn.where(num_upper < 0, fn.cast(s[-1], num_upper.dtype), num_upper)
    mask = _band_mask(s[-2], s[-1], lo, up)
    return fn.where(mask, x, fn.zeros_like(x))


def diag_part(input: Any, name: Optional[str] = None, k: int = 0, padding_value: Any = 0,  # noqa: A002
              align: str = "RIGHT_LEFT") -> Any:
    """``tf.linalg.diag_part`` (main diagonal, ``k=0``): ``[..., min(M, N)]``."""
    import fn
    if k != 0:
        raise NotImplementedError("fn.linalg.diag_part supports the main diagonal (k=0)")
    x = _t(input)
    s = fn.shape(x)
    n = fn.minimum(s[-2], s[-1])
    idx = fn.range(n)
    rows = fn.gather(x, idx, axis=-2)                     # [..., n, N]
    on_diagonal = fn.cast(fn.one_hot(idx, s[-1]), fn.bool)   # where, not a product: inf/nan stay put
    return fn.reduce_sum(fn.where(on_diagonal, rows, fn.zeros_like(rows)), axis=-1)


def diag(diagonal: Any, name: Optional[str] = None, k: int = 0, num_rows: int = -1, num_cols: int = -1,
         padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Any:
    """``tf.linalg.diag`` (main diagonal, ``k=0``): square matrices with ``diagonal`` on it."""
    import fn
    if k != 0 or num_rows not in (-1, None) or num_cols not in (-1, None):
        raise NotImplementedError("fn.linalg.diag supports the main diagonal of square matrices")
    d = _t(diagonal)
    n = fn.shape(d)[-1]
    return fn.expand_dims(d, -1) * fn.eye(n, dtype=d.dtype)


def adjoint(matrix: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.adjoint``: conjugate transpose of the last two axes."""
    import fn
    x = _t(matrix)
    rank = x.shape.rank
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    y = fn.transpose(x, perm)
    return fn.math.conj(y) if x.dtype.is_complex else y
