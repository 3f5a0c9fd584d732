"""``tf.math`` names TF has and fn lacked (issue 22: the ones Keras' TensorFlow backend calls),
composed of fn's kernels with TF's formulas (so gradients follow)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from fn._ops import array_ops as _array_ops
from fn._ops import complex_ops as _complex_ops
from fn._ops import linalg_ops as _linalg_ops
from fn._ops import math_ops as _math_ops
from fn._tf_compat import _segment_ops
from fn import dtypes as _dtypes


def _t(x: Any) -> Any:

    return _array_ops.convert_to_tensor(x)


def sinh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.sinh``."""

    x = _t(x)
    return (_math_ops.exp(x) - _math_ops.exp(-x)) / 2


def cosh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.cosh``."""

    x = _t(x)
    return (_math_ops.exp(x) + _math_ops.exp(-x)) / 2


def tan(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.tan``."""

    x = _t(x)
    return _math_ops.sin(x) / _math_ops.cos(x)


def atan(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.atan``."""

    x = _t(x)
    return _linalg_ops.atan2(x, _math_ops.ones_like(x))


def asin(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.asin`` (NaN outside [-1, 1])."""

    x = _t(x)
    return _linalg_ops.atan2(x, _math_ops.sqrt(1 - x * x))


def acos(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.acos`` (NaN outside [-1, 1])."""

    x = _t(x)
    return _linalg_ops.atan2(_math_ops.sqrt(1 - x * x), x)


def asinh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.asinh`` (odd, accurate for large |x|)."""

    x = _t(x)
    a = _math_ops.abs(x)
    return _math_ops.sign(x) * _math_ops.log(a + _math_ops.sqrt(a * a + 1))


def acosh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.acosh`` (NaN below 1)."""

    x = _t(x)
    return _math_ops.log(x + _math_ops.sqrt(x * x - 1))


def atanh(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.atanh``."""

    x = _t(x)
    return 0.5 * (_math_ops.log1p(x) - _math_ops.log1p(-x))


def expm1(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.expm1``: exp(x) - 1, with x + x^2/2 + x^3/6 near 0 where exp(x) - 1 cancels."""

    x = _t(x)
    small = _math_ops.abs(x) < 1e-5
    return _array_ops.where(small, x + x * x / 2 + x * x * x / 6, _math_ops.exp(x) - 1)


def erfc(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.erfc``: 1 - erf(x)."""

    return 1 - _linalg_ops.erf(_t(x))


def angle(input: Any, name: Optional[str] = None) -> Any:
    """``tf.math.angle``: atan2(imag, real); 0 (or pi for negatives) for real inputs."""

    x = _t(input)
    if x.dtype.is_complex:
        return _linalg_ops.atan2(_complex_ops.imag(x), _complex_ops.real(x))
    return _array_ops.where(x < 0, _array_ops.constant(np.pi, x.dtype), _math_ops.zeros_like(x))


def in_top_k(targets: Any, predictions: Any, k: int, name: Optional[str] = None) -> Any:
    """``tf.math.in_top_k``: whether ``targets[i]`` is among the top ``k`` of ``predictions[i]``
    (ties count as in, as TF's kernel)."""

    predictions = _t(predictions)
    targets = _array_ops.cast(_t(targets), _dtypes.int32)
    target_vals = _array_ops.gather(predictions, targets, axis=1, batch_dims=1)
    larger = _math_ops.reduce_sum(
        _array_ops.cast(predictions > _array_ops.expand_dims(target_vals, 1), _dtypes.int32), axis=1
    )
    finite = _math_ops.is_finite(target_vals)
    return _math_ops.logical_and(larger < k, finite)


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = None,
    name: Optional[str] = None,
    axis: Any = None,
    binary_output: bool = False,
) -> Any:
    """``tf.math.bincount`` (1-D, or per row with ``axis=-1``)."""

    arr = _array_ops.cast(_t(arr), _dtypes.int32)
    dtype = _dtypes.as_dtype(
        dtype or (weights.dtype if weights is not None and hasattr(weights, "dtype") else _dtypes.int32)
    )
    size = (
        _math_ops.maximum(_math_ops.reduce_max(arr) + 1, 0) if arr.shape.num_elements() != 0 else _array_ops.constant(0)
    )
    if minlength is not None:
        size = _math_ops.maximum(size, minlength)
    if maxlength is not None:
        size = _math_ops.minimum(size, maxlength)
    w = _math_ops.ones_like(arr, dtype) if weights is None else _array_ops.cast(_t(weights), dtype)
    keep = arr < size
    if axis == -1 and arr.shape.rank == 2:
        rows = _array_ops.shape(arr)[0]
        ids = arr + _array_ops.expand_dims(_array_ops.range(rows) * size, 1)
        ids = _array_ops.where(keep, ids, -_math_ops.ones_like(ids))
        out = _segment_ops.unsorted_segment_sum(
            _array_ops.where(keep, w, _math_ops.zeros_like(w)), _math_ops.maximum(ids, 0), rows * size
        )
        out = _array_ops.reshape(out, _array_ops.stack([rows, size]))
    else:
        flat, fw = _array_ops.reshape(arr, [-1]), _array_ops.reshape(w, [-1])
        fk = _array_ops.reshape(keep, [-1])
        out = _segment_ops.unsorted_segment_sum(
            _array_ops.where(fk, fw, _math_ops.zeros_like(fw)),
            _array_ops.where(fk, flat, _math_ops.zeros_like(flat)),
            size,
        )
    if binary_output:
        out = _array_ops.cast(out > 0, dtype)
    return out
