"""Reductions, sorting and scans of ``tf.experimental.numpy`` (TF's ``_reduce`` and friends)."""
from __future__ import annotations

from typing import Any, Callable, Optional


import fn
from fn._numpy import _dtypes
from fn._numpy._utils import array, asarray

_TO_INT_ = 0
_TO_FLOAT = 1


def _reduce(tf_fn: Callable, a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None,
            promote_int: Optional[int] = _TO_INT_, tf_bool_fn: Optional[Callable] = None,
            preserve_bool: bool = False) -> Any:
    if dtype:
        dtype = _dtypes.result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if (dtype is fn.bool or (preserve_bool and a.dtype is fn.bool)) and tf_bool_fn is not None:
        return tf_bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None:
        dt = a.dtype
        if dt.is_integer or dt is fn.bool:
            if promote_int == _TO_INT_:
                # NumPy sums narrow integers (and bools) in its default int (int64).
                if dt is fn.bool or dt.size < 8:
                    a = fn.cast(a, fn.int64 if dt is fn.bool or not dt.is_unsigned else fn.uint64)
            elif promote_int == _TO_FLOAT:
                a = fn.cast(a, _dtypes.result_type(float))
    if isinstance(axis, fn.Tensor) and axis.dtype not in (fn.int32, fn.int64):
        axis = fn.cast(axis, fn.int64)
    return tf_fn(a, axis=axis, keepdims=keepdims)


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.sum`` (integers accumulate in int64, as NumPy)."""
    return _reduce(fn.reduce_sum, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=fn.reduce_any)


def prod(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.prod``."""
    return _reduce(fn.reduce_prod, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=fn.reduce_all)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.mean`` (integers averaged in the default float type)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(fn.reduce_mean, a, axis=axis, dtype=dtype, keepdims=keepdims, promote_int=_TO_FLOAT)


def amax(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.amax`` / ``tnp.max``."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(fn.reduce_max, a, axis=axis, keepdims=keepdims, promote_int=None,
                   tf_bool_fn=fn.reduce_any, preserve_bool=True)


def amin(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> Any:
    """``tnp.amin`` / ``tnp.min``."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(fn.reduce_min, a, axis=axis, keepdims=keepdims, promote_int=None,
                   tf_bool_fn=fn.reduce_all, preserve_bool=True)


max = amax
min = amin


def all(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.all``."""
    return fn.reduce_all(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def any(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.any``."""
    return fn.reduce_any(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def _axis_count(t: Any, axis: Any) -> Any:
    if axis is None:
        return fn.size(t)
    axes = [axis] if isinstance(axis, int) else list(axis)
    shape = fn.shape(t)
    n = fn.constant(1, fn.int32)
    for ax in axes:
        n = n * shape[ax]
    return n


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: Any = None) -> Any:
    """``tnp.var`` (``ddof`` as NumPy)."""
    working_dtype = _dtypes.result_type(a, dtype) if dtype else None
    if out is not None:
        raise ValueError("Setting out is not supported.")

    def reduce_fn(input_tensor: Any, axis: Any, keepdims: bool) -> Any:
        means = fn.reduce_mean(input_tensor, axis=axis, keepdims=True)
        centered = input_tensor - means
        if input_tensor.dtype.is_complex:
            centered = fn.cast(fn.math.real(centered * fn.math.conj(centered)), input_tensor.dtype)
        else:
            centered = fn.square(centered)
        squared = fn.reduce_sum(centered, axis=axis, keepdims=keepdims)
        n = fn.cast(_axis_count(input_tensor, axis) - ddof, input_tensor.dtype)
        return fn.truediv(squared, n)
    fn_ = reduce_fn if ddof != 0 else fn.math.reduce_variance
    result = _reduce(fn_, a, axis=axis, dtype=working_dtype, keepdims=keepdims, promote_int=_TO_FLOAT)
    if dtype:
        result = fn.cast(result, _dtypes.result_type(dtype))
    return result


def std(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.std``."""
    return _reduce(fn.math.reduce_std, a, axis=axis, keepdims=keepdims, promote_int=_TO_FLOAT)


def ptp(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    """``tnp.ptp``: max minus min."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def count_nonzero(a: Any, axis: Any = None) -> Any:
    """``tnp.count_nonzero``."""
    return fn.math.count_nonzero(array(a), axis)


def _make_nan_reduction(name: str, reduction: Callable, init_val: Any) -> Callable:
    def nan_reduction(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        from fn._numpy._math import isnan
        a = array(a)
        v = array(init_val, dtype=a.dtype)
        return reduction(fn.where(isnan(a), fn.broadcast_to(v, fn.shape(a)), a), axis=axis,
                         dtype=dtype, keepdims=keepdims)
    nan_reduction.__name__ = name
    nan_reduction.__doc__ = f"``tnp.{name}``: NaNs count as {init_val}."
    return nan_reduction


nansum = _make_nan_reduction("nansum", sum, 0)
nanprod = _make_nan_reduction("nanprod", prod, 1)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> Any:
    """``tnp.nanmean``."""
    from fn._numpy._math import isnan, logical_not
    a = array(a)
    if a.dtype is fn.bool or a.dtype.is_integer:
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
            a = fn.cast(a, _dtypes.result_type(a.dtype, default_float))
        avg = fn.reduce_mean(a, axis=axis)
        weights_sum = fn.cast(fn.size(a) if axis is None else fn.shape(a)[axis], a.dtype)
    else:
        out_dtype = (_dtypes.result_type(a.dtype, weights) if _dtypes.is_inexact(a.dtype)
                     else _dtypes.result_type(a.dtype, weights, default_float))
        a = array(a, out_dtype)
        weights = array(weights, out_dtype)
        if axis is None or a.shape.rank == weights.shape.rank:
            weights_sum = fn.reduce_sum(weights, axis=axis)
            avg = fn.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            if weights.shape.rank != 1:
                raise fn.errors.InvalidArgumentError(
                    None, None, "Axis must be specified when shapes of a and weights differ.")
            weights_sum = fn.reduce_sum(weights)
            avg = fn.tensordot(a, weights, [[axis], [0]]) / weights_sum
    if returned:
        return avg, fn.broadcast_to(weights_sum, fn.shape(avg))
    return avg


def argsort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """``tnp.argsort`` (int64 indices)."""
    if kind not in ("quicksort", "stable"):
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" and kind="stable" '
                         f"are supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received dtype: {a.dtype}")
    if a.shape.rank == 0:
        return fn.constant([0], fn.int64)
    if axis is None:
        a = fn.reshape(a, [-1])
        axis = 0
    return fn.cast(fn.argsort(a, axis, stable=kind == "stable"), fn.int64)


def sort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """``tnp.sort``."""
    if kind != "quicksort":
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" is supported. '
                         f"Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if axis is None:
        return fn.sort(fn.reshape(a, [-1]), 0)
    return fn.sort(a, axis)


def _argminmax(tf_fn: Callable, a: Any, axis: Any) -> Any:
    from fn._numpy._manip import atleast_1d
    a = array(a)
    a_t = fn.reshape(a, [-1]) if axis is None else atleast_1d(a)
    return tf_fn(a_t, axis=0 if axis is None else axis)


def argmax(a: Any, axis: Any = None) -> Any:
    """``tnp.argmax``."""
    return _argminmax(fn.argmax, a, axis)


def argmin(a: Any, axis: Any = None) -> Any:
    """``tnp.argmin``."""
    return _argminmax(fn.argmin, a, axis)


def _scan(tf_fn: Callable, a: Any, axis: Any, dtype: Any) -> Any:
    a = asarray(a, dtype=dtype)
    if dtype is None:
        dt = a.dtype
        if dt is fn.bool or (dt.is_integer and dt.size < 8):
            a = fn.cast(a, fn.int64)
    if axis is None:
        a = fn.reshape(a, [-1])
        axis = 0
    return tf_fn(a, axis)


def cumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """``tnp.cumsum`` (flattened when ``axis`` is None)."""
    return _scan(fn.cumsum, a, axis, dtype)


def cumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """``tnp.cumprod``."""
    return _scan(fn.math.cumprod, a, axis, dtype)
