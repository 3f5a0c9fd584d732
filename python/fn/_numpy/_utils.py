"""Conversion and promotion helpers of ``tf.experimental.numpy`` (TF's ``np_array_ops.array``,
``_promote_dtype`` and ``np_utils`` helpers), on fn tensors."""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops as _array_ops
from fn import errors as _errors
from fn._tensor import tensor as _tensor
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes


def is_ndarray(x: Any) -> bool:
    """``tnp.ndarray`` is ``fn.Tensor`` (eager or symbolic)."""
    return isinstance(x, _tensor.Tensor)


def static_value(x: Any) -> Any:
    """The NumPy value of an eager tensor (or a non-tensor), None for symbolic tensors."""
    if isinstance(x, _tensor.Tensor):
        return x.numpy() if isinstance(x, _core.EagerTensor) else None
    return np.asarray(x)


def _is_string_type(dtype: Any) -> bool:
    return dtype in (np.str_, np.bytes_) or dtype is _fn_dtypes.string


def array_internal(val: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Any:
    """``np.array``'s body: converts ``val`` to a tensor of NumPy's result type for it."""
    result = val
    if not is_ndarray(result):
        dtype = _dtypes.result_type_unary(result, dtype)
        if _is_string_type(dtype):
            result = _array_ops.convert_to_tensor(result, dtype=_fn_dtypes.string)
        else:
            result = _array_ops.convert_to_tensor(result, dtype_hint=dtype)
            if result.dtype != dtype:
                result = _array_ops.cast(result, dtype)
    elif dtype and result.dtype != dtype:
        result = _array_ops.cast(result, dtype)
    if copy:
        result = _array_ops.identity(result)
    if ndmin > 32:
        raise ValueError("ndmin bigger than allowable number of dimensions: 32.")
    rank = result.shape.rank
    if ndmin and rank is not None and ndmin > rank:
        result = _array_ops.reshape(
            result,
            [1] * (ndmin - rank) + [-1 if d is None else d for d in result.shape.as_list()]
            if result.shape.is_fully_defined() or rank <= 1
            else _array_ops.concat([_array_ops.ones([ndmin - rank], _fn_dtypes.int32), _array_ops.shape(result)], 0),
        )
    return result


def array(val: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Any:
    """``tf.experimental.numpy.array``."""
    if dtype:
        dtype = _dtypes.result_type(dtype)
    return array_internal(val, dtype, copy, ndmin)


def asarray(a: Any, dtype: Any = None) -> Any:
    """``tf.experimental.numpy.asarray``: ``a`` itself when it is already a tensor of ``dtype``."""
    if dtype:
        dtype = _dtypes.result_type(dtype)
    if is_ndarray(a) and (not dtype or dtype == a.dtype):
        return a
    return array(a, dtype, copy=False)


def asanyarray(a: Any, dtype: Any = None) -> Any:
    """``tf.experimental.numpy.asanyarray``."""
    return asarray(a, dtype)


def ascontiguousarray(a: Any, dtype: Any = None) -> Any:
    """``tf.experimental.numpy.ascontiguousarray``."""
    return array(a, dtype, ndmin=1)


def promote_dtype(*arrays: Any) -> List[Any]:
    dtype = _dtypes.result_type(*arrays)

    def _fast(x: Any) -> Any:
        if is_ndarray(x) and x.dtype == dtype:
            return x
        return array_internal(x, dtype=dtype, copy=False)

    return [_fast(a) for a in arrays]


def promote_dtype_binary(t1: Any, t2: Any) -> List[Any]:
    dtype = _dtypes.result_type_binary(t1, t2)
    if not (is_ndarray(t1) and t1.dtype == dtype):
        t1 = array_internal(t1, dtype=dtype, copy=False)
    if not (is_ndarray(t2) and t2.dtype == dtype):
        t2 = array_internal(t2, dtype=dtype, copy=False)
    return [t1, t2]


def to_float(x: Any) -> Any:
    """``x`` as a tensor, cast to the default float type unless already inexact."""
    x = asarray(x)
    if not _dtypes.is_inexact(x.dtype):
        x = _array_ops.cast(x, _dtypes.result_type(float))  # float64 even with prefer_float32, as TF
    return x


def rank(x: Any) -> Any:
    r = x.shape.rank
    return r if r is not None else _array_ops.rank(x)


def static_shape(x: Any) -> Optional[List[int]]:
    return x.shape.as_list() if x.shape.is_fully_defined() else None


def norm_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise _errors.InvalidArgumentError(None, None, f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def shape_list(x: Any) -> List[Any]:
    """Static dims where known, scalar tensors for the unknown ones."""
    dims = x.shape.as_list()
    if None not in dims:
        return dims
    dyn = _array_ops.shape(x)
    return [d if d is not None else dyn[i] for i, d in enumerate(dims)]
