"""``tf.math`` names TF has and fn lacked (issue 22: the ones Keras' TensorFlow backend calls),
composed of fn's kernels with TF's formulas (so gradients follow)."""

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


def angle(input: Any, name: Optional[str] = None) -> Any:
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
        out = fn.math.unsorted_segment_sum(
            fn.where(fk, fw, fn.zeros_like(fw)), fn.where(fk, flat, fn.zeros_like(flat)), size
        )
    if binary_output:
        out = fn.cast(out > 0, dtype)
    return out
