"""Reductions, sorting and scans of ``tf.experimental.numpy`` (TF's ``_reduce`` and friends)."""

from __future__ import annotations

from typing import Any, Callable, Optional


from fn._ops import array_ops as _array_ops
from fn._ops import complex_ops as _complex_ops
from fn import errors as _errors
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn._ops import sort_ops as _sort_ops
from fn._tensor import tensor as _tensor
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes
from fn._numpy._manip import diagonal
from fn._numpy._utils import array, asarray
from fn._numpy._math import isnan, logical_not
from fn._numpy._manip import atleast_1d

_TO_INT_ = 0
_TO_FLOAT = 1


def _reduce(
    tf_fn: Callable,
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    keepdims: Any = None,
    promote_int: Optional[int] = _TO_INT_,
    tf_bool_fn: Optional[Callable] = None,
    preserve_bool: bool = False,
) -> Any:
    if dtype:
        dtype = _dtypes.result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if (dtype is _fn_dtypes.bool_ or (preserve_bool and a.dtype is _fn_dtypes.bool_)) and tf_bool_fn is not None:
        return tf_bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None:
        dt = a.dtype
        if dt.is_integer or dt is _fn_dtypes.bool_:
            if promote_int == _TO_INT_:
                # NumPy sums narrow integers (and bools) in its default int (int64).
                if dt is _fn_dtypes.bool_ or dt.size < 8:
                    a = _array_ops.cast(
                        a, _fn_dtypes.int64 if dt is _fn_dtypes.bool_ or not dt.is_unsigned else _fn_dtypes.uint64
                    )
            elif promote_int == _TO_FLOAT:
                a = _array_ops.cast(a, _dtypes.result_type(float))
    if isinstance(axis, _tensor.Tensor) and axis.dtype not in (_fn_dtypes.int32, _fn_dtypes.int64):
        axis = _array_ops.cast(axis, _fn_dtypes.int64)
    return tf_fn(a, axis=axis, keepdims=keepdims)


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.sum`` (integers accumulate in int64, as NumPy)."""
    return _reduce(_math_ops.reduce_sum, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=_math_ops.reduce_any)


def prod(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.prod``."""
    return _reduce(_math_ops.reduce_prod, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=_math_ops.reduce_all)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.mean`` (integers averaged in the default float type)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(_math_ops.reduce_mean, a, axis=axis, dtype=dtype, keepdims=keepdims, promote_int=_TO_FLOAT)


def amax(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.amax`` / ``tnp.max``."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(
        _math_ops.reduce_max,
        a,
        axis=axis,
        keepdims=keepdims,
        promote_int=None,
        tf_bool_fn=_math_ops.reduce_any,
        preserve_bool=True,
    )


def amin(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.amin`` / ``tnp.min``."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(
        _math_ops.reduce_min,
        a,
        axis=axis,
        keepdims=keepdims,
        promote_int=None,
        tf_bool_fn=_math_ops.reduce_all,
        preserve_bool=True,
    )


max = amax
min = amin


def all(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.all``."""
    return _math_ops.reduce_all(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def any(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.any``."""
    return _math_ops.reduce_any(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def _axis_count(t: Any, axis: Any) -> Any:
    if axis is None:
        return _array_ops.size(t)
    axes = [axis] if isinstance(axis, int) else list(axis)
    shape = _array_ops.shape(t)
    n = _array_ops.constant(1, _fn_dtypes.int32)
    for ax in axes:
        n = n * shape[ax]
    return n


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0, keepdims: Any = None) -> Any:
    """``tnp.var`` (``ddof`` as NumPy)."""
    working_dtype = _dtypes.result_type(a, dtype) if dtype else None
    if out is not None:
        raise ValueError("Setting out is not supported.")

    def reduce_fn(input_tensor: Any, axis: Any, keepdims: bool) -> Any:
        means = _math_ops.reduce_mean(input_tensor, axis=axis, keepdims=True)
        centered = input_tensor - means
        if input_tensor.dtype.is_complex:
            centered = _array_ops.cast(_complex_ops.real(centered * _complex_ops.conj(centered)), input_tensor.dtype)
        else:
            centered = _math_ops.square(centered)
        squared = _math_ops.reduce_sum(centered, axis=axis, keepdims=keepdims)
        n = _array_ops.cast(_axis_count(input_tensor, axis) - ddof, input_tensor.dtype)
        return _math_ops.truediv(squared, n)

    fn_ = reduce_fn if ddof != 0 else _math_ops.reduce_variance
    result = _reduce(fn_, a, axis=axis, dtype=working_dtype, keepdims=keepdims, promote_int=_TO_FLOAT)
    if dtype:
        result = _array_ops.cast(result, _dtypes.result_type(dtype))
    return result


def std(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.std``."""
    return _reduce(_math_ops.reduce_std, a, axis=axis, keepdims=keepdims, promote_int=_TO_FLOAT)


def ptp(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.ptp``: max minus min."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def count_nonzero(a: Any, axis: Any = None) -> Any:
    """``tnp.count_nonzero``."""
    return _math_ops.count_nonzero(array(a), axis)


def _make_nan_reduction(name: str, reduction: Callable, init_val: Any) -> Callable:
    def nan_reduction(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        from fn._numpy._math import isnan

        a = array(a)
        v = array(init_val, dtype=a.dtype)
        return reduction(
            _array_ops.where(isnan(a), _manip_ops.broadcast_to(v, _array_ops.shape(a)), a),
            axis=axis,
            dtype=dtype,
            keepdims=keepdims,
        )

    nan_reduction.__name__ = name
    nan_reduction.__doc__ = f"``tnp.{name}``: NaNs count as {init_val}."
    return nan_reduction


nansum = _make_nan_reduction("nansum", sum, 0)
nanprod = _make_nan_reduction("nanprod", prod, 1)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.nanmean``."""

    a = array(a)
    if a.dtype is _fn_dtypes.bool_ or a.dtype.is_integer:
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    nan_mask = logical_not(isnan(a))
    if dtype is None:
        dtype = a.dtype
    normalizer = sum(nan_mask, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / normalizer


def average(a: Any, axis: Optional[int] = None, weights: Any = None, returned: bool = False) -> Any:
    """``tnp.average``."""
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis} (of type {type(axis)})")
    a = array(a)
    default_float = _dtypes.result_type(float)
    if weights is None:
        if not _dtypes.is_inexact(a.dtype):
            a = _array_ops.cast(a, _dtypes.result_type(a.dtype, default_float))
        avg = _math_ops.reduce_mean(a, axis=axis)
        weights_sum = _array_ops.cast(_array_ops.size(a) if axis is None else _array_ops.shape(a)[axis], a.dtype)
    else:
        out_dtype = (
            _dtypes.result_type(a.dtype, weights)
            if _dtypes.is_inexact(a.dtype)
            else _dtypes.result_type(a.dtype, weights, default_float)
        )
        a = array(a, out_dtype)
        weights = array(weights, out_dtype)
        if axis is None or a.shape.rank == weights.shape.rank:
            weights_sum = _math_ops.reduce_sum(weights, axis=axis)
            avg = _math_ops.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            if weights.shape.rank != 1:
                raise _errors.InvalidArgumentError(
                    None, None, "Axis must be specified when shapes of a and weights differ."
                )
            weights_sum = _math_ops.reduce_sum(weights)
            avg = _math_ops.tensordot(a, weights, [[axis], [0]]) / weights_sum
    if returned:
        return avg, _manip_ops.broadcast_to(weights_sum, _array_ops.shape(avg))
    return avg


def argsort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """``tnp.argsort`` (int64 indices)."""
    if kind not in ("quicksort", "stable"):
        raise ValueError(
            'Invalid value for argument `kind`. Only kind="quicksort" and kind="stable" '
            f"are supported. Received: kind={kind}"
        )
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received dtype: {a.dtype}")
    if a.shape.rank == 0:
        return _array_ops.constant([0], _fn_dtypes.int64)
    if axis is None:
        a = _array_ops.reshape(a, [-1])
        axis = 0
    return _array_ops.cast(_sort_ops.argsort(a, axis, stable=kind == "stable"), _fn_dtypes.int64)


def sort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """``tnp.sort``."""
    if kind != "quicksort":
        raise ValueError(
            f'Invalid value for argument `kind`. Only kind="quicksort" is supported. Received: kind={kind}'
        )
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if axis is None:
        return _sort_ops.sort(_array_ops.reshape(a, [-1]), 0)
    return _sort_ops.sort(a, axis)


def _argminmax(tf_fn: Callable, a: Any, axis: Any) -> Any:

    a = array(a)
    a_t = _array_ops.reshape(a, [-1]) if axis is None else atleast_1d(a)
    return tf_fn(a_t, axis=0 if axis is None else axis)


def argmax(a: Any, axis: Any = None) -> Any:
    """``tnp.argmax``."""
    return _argminmax(_math_ops.argmax, a, axis)


def argmin(a: Any, axis: Any = None) -> Any:
    """``tnp.argmin``."""
    return _argminmax(_math_ops.argmin, a, axis)


def _scan(tf_fn: Callable, a: Any, axis: Any, dtype: Any) -> Any:
    a = asarray(a, dtype=dtype)
    if dtype is None:
        dt = a.dtype
        if dt is _fn_dtypes.bool_ or (dt.is_integer and dt.size < 8):
            a = _array_ops.cast(a, _fn_dtypes.int64)
    if axis is None:
        a = _array_ops.reshape(a, [-1])
        axis = 0
    return tf_fn(a, axis)


def cumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """``tnp.cumsum`` (flattened when ``axis`` is None)."""
    return _scan(_sort_ops.cumsum, a, axis, dtype)


def cumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """``tnp.cumprod``."""
    return _scan(_sort_ops.cumprod, a, axis, dtype)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    """``tnp.trace`` (over the last two axes the sum keeps the dtype, as TF's ``tf.linalg.trace``)."""
    if dtype:
        dtype = _dtypes.result_type(dtype)
    a = asarray(a, dtype)
    rank = a.shape.rank
    if offset == 0 and rank is not None and axis1 in (-2, rank - 2) and axis2 in (-1, rank - 1):
        return _math_ops.reduce_sum(diagonal(a, 0, -2, -1), -1)
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype)
