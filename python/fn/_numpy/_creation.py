"""Array creation of ``tf.experimental.numpy`` (TF's ``np_array_ops``/``np_math_ops`` creators)."""

from __future__ import annotations

import builtins
from typing import Any, List, Optional

import numpy as np

from fn._ops import array_ops as _array_ops
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes
from fn._numpy._utils import array, asarray, is_ndarray, shape_list
from fn._numpy import _math
from fn._numpy._math import power
from fn._numpy._manip import moveaxis
from fn._numpy._manip import diagonal

_DT = _dtypes.as_fn_dtype


def _dtype_or_default(dtype: Any) -> Any:
    return _dtypes.result_type(dtype) if dtype else _DT(_dtypes.default_float_type())


def empty(shape: Any, dtype: Any = float) -> Any:
    """``tnp.empty`` (zeros: fn tensors are always initialised)."""
    return zeros(shape, dtype)


def empty_like(a: Any, dtype: Any = None) -> Any:
    """``tnp.empty_like``."""
    return zeros_like(a, dtype)


def zeros(shape: Any, dtype: Any = float) -> Any:
    """``tnp.zeros``: float64 by default (float32 with ``prefer_float32``)."""
    return _array_ops.zeros(shape, dtype=_dtype_or_default(dtype))


def ones(shape: Any, dtype: Any = float) -> Any:
    """``tnp.ones``."""
    return _array_ops.ones(shape, dtype=_dtype_or_default(dtype))


def zeros_like(a: Any, dtype: Any = None) -> Any:
    """``tnp.zeros_like``."""
    dt = _dtypes.result_type_unary(a, dtype)
    return _math_ops.zeros_like(asarray(a), dtype=dt)


def ones_like(a: Any, dtype: Any = None) -> Any:
    """``tnp.ones_like``."""
    dt = _dtypes.result_type_unary(a, dtype)
    return _math_ops.ones_like(asarray(a), dtype=dt)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """``tnp.full``: ``fill_value`` broadcast to ``shape``."""
    if not is_ndarray(shape):
        shape = asarray(_array_ops.convert_to_tensor(shape, dtype_hint=_fn_dtypes.int32))
    shape = _array_ops.reshape(shape, [-1])
    return _manip_ops.broadcast_to(asarray(fill_value, dtype=dtype), shape)


def broadcast_to(array: Any, shape: Any) -> Any:
    """``tnp.broadcast_to``."""
    return full(shape, array)


def full_like(
    a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None
) -> Any:
    """``tnp.full_like``."""
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or _dtypes.result_type(a)
    return _manip_ops.broadcast_to(asarray(fill_value, dtype=dtype), _array_ops.shape(a))


def _diag_indices(length: Any, k: int) -> Any:
    idx = _array_ops.range(length)
    return _array_ops.stack([idx + builtins.max(-k, 0), idx + builtins.max(k, 0)], axis=1)


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = float) -> Any:
    """``tnp.eye``: ones on the ``k``-th diagonal of an N x M matrix."""
    dtype = _dtype_or_default(dtype)
    N = int(N)
    M = N if not M else int(M)
    k = int(k)
    if k >= M or -k >= N:
        return _array_ops.zeros([N, M], dtype=dtype)
    length = builtins.min(N + builtins.min(k, 0), M - builtins.max(k, 0))
    return _array_ops.scatter_nd(_diag_indices(length, k), _array_ops.ones([length], dtype), [N, M])


def identity(n: int, dtype: Any = float) -> Any:
    """``tnp.identity``."""
    return eye(N=n, M=n, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """``tnp.arange``: values ``start, start+step, ...`` below ``stop`` (NumPy's result dtype)."""
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = _dtypes.result_type(dtype)
    elif stop is None:
        dtype = _dtypes.result_type(start, step)
    else:
        dtype = _dtypes.result_type(start, step, stop)
    if step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0)):
        return array([], dtype=dtype)
    if step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0)):
        return array([], dtype=dtype)
    return _array_ops.cast(_array_ops.range(start, stop, step), dtype)


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = float,
    axis: int = 0,
) -> Any:
    """``tnp.linspace`` (NumPy 2's result type: that of ``start * 1.0`` and ``stop * 1.0``)."""
    if dtype:
        dtype = _dtypes.result_type([start * 1.0, stop * 1.0])
    start = array(start, dtype=dtype)
    stop = array(stop, dtype=dtype)
    if num < 0:
        raise ValueError(f"Argument `num` (number of samples) must be a non-negative integer. Received: num={num}")
    step = _array_ops.convert_to_tensor(np.nan)
    if endpoint:
        result = _array_ops.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = _array_ops.cast(stop, step.dtype) - step
            result = _array_ops.linspace(_array_ops.cast(start, new_stop.dtype), new_stop, num, axis=axis)
        else:
            result = _array_ops.linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.is_integer:
            result = _math_ops.floor(result)
        result = _array_ops.cast(result, dtype)
    return (result, step) if retstep else result


def logspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0, dtype: Any = None, axis: int = 0
) -> Any:
    """``tnp.logspace``."""
    dtype = _dtypes.result_type([start * 1.0, stop * 1.0])
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return _array_ops.cast(_math_ops.pow(_array_ops.cast(base, result.dtype), result), dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0) -> Any:
    """``tnp.geomspace``: a geometric progression (NumPy's sign conventions)."""

    dtype = _fn_dtypes.as_dtype(dtype) if dtype else _dtypes.result_type(start, stop, float(num), zeros((), dtype))
    comp = np.promote_types(dtype.as_numpy_dtype, np.float32)
    start = asarray(start, dtype=comp)
    stop = asarray(stop, dtype=comp)
    start_sign = 1 - _math_ops.sign(start)
    stop_sign = 1 - _math_ops.sign(stop)
    signflip = 1 - start_sign * stop_sign // 2
    res = signflip * logspace(
        _math.log10(signflip * start),
        _math.log10(signflip * stop),
        num,
        endpoint=endpoint,
        base=10.0,
        dtype=comp,
        axis=0,
    )
    if axis != 0:
        res = moveaxis(res, 0, axis)
    return _array_ops.cast(res, dtype)


def _tri_mask(n: Any, m: Any, k: int) -> Any:
    rows = _array_ops.reshape(_array_ops.range(n), [-1, 1])
    cols = _array_ops.reshape(_array_ops.range(m), [1, -1])
    return cols - rows <= k


def tri(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = None) -> Any:
    """``tnp.tri``: ones at and below the ``k``-th diagonal."""
    M = M if M is not None else N
    dtype = _dtypes.result_type(dtype) if dtype else _DT(_dtypes.default_float_type())
    if dtype is _fn_dtypes.bool_:
        return _tri_mask(N, M, k)
    return _array_ops.cast(_tri_mask(N, M, k), dtype)


def _tril_triu(m: Any, k: int, lower: bool) -> Any:
    m = asarray(m)
    if m.shape.rank is None:
        raise ValueError("Argument to tril/triu should have known rank")
    if m.shape.rank < 2:
        raise ValueError("Argument to tril/triu must have rank at least 2")
    shp = shape_list(m)
    mask = _tri_mask(shp[-2], shp[-1], k if lower else k - 1)
    if not lower:
        mask = _math_ops.logical_not(mask)
    return _array_ops.where(_manip_ops.broadcast_to(mask, _array_ops.shape(m)), m, _math_ops.zeros_like(m))


def tril(m: Any, k: int = 0) -> Any:
    """``tnp.tril``: the lower triangle (zeros above the ``k``-th diagonal)."""
    return _tril_triu(m, k, True)


def triu(m: Any, k: int = 0) -> Any:
    """``tnp.triu``: the upper triangle."""
    return _tril_triu(m, k, False)


def diag(v: Any, k: int = 0) -> Any:
    """``tnp.diag``: a diagonal matrix from a vector, or a matrix's ``k``-th diagonal."""
    v = asarray(v)
    r = v.shape.rank
    if r is not None and r not in (1, 2):
        raise ValueError(f"Shape must be at most rank 2 but is rank {r}")
    if r == 2:
        return diagonal(v, k)
    n = _array_ops.size(v)
    side = n + builtins.abs(k)
    return _array_ops.scatter_nd(_diag_indices(n, k), v, _array_ops.stack([side, side]))


def diagflat(v: Any, k: int = 0) -> Any:
    """``tnp.diagflat``."""
    return diag(_array_ops.reshape(asarray(v), [-1]), k)


def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> Any:
    """``tnp.vander``: columns are powers of ``x``."""

    x = asarray(x)
    if x.shape.rank is not None and x.shape.rank != 1:
        raise ValueError(f"x must be a one-dimensional array. Received: x={x}")
    if N is None:
        N = x.shape[0]
    if N is not None and N < 0:
        raise ValueError(f"Argument `N` must be a non-negative integer. Received: N={N}")
    delta = arange(N, dtype=_fn_dtypes.int32) if increasing else arange(N - 1, -1, -1, dtype=_fn_dtypes.int32)
    return power(_array_ops.expand_dims(x, -1), delta)


def meshgrid(*xi: Any, **kwargs: Any) -> List[Any]:
    """``tnp.meshgrid`` (``indexing`` 'xy' or 'ij'; ``sparse`` and ``copy`` as NumPy)."""
    sparse = kwargs.get("sparse", False)
    if sparse:
        raise ValueError(f"Function `meshgrid` does not support returning sparse arrays yet. Received: sparse={sparse}")
    copy_ = kwargs.get("copy", True)
    if not copy_:
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={copy_}")
    indexing = kwargs.get("indexing", "xy")
    return list(_manip_ops.meshgrid(*[asarray(x) for x in xi], indexing=indexing))


def copy(a: Any) -> Any:
    """``tnp.copy``."""
    return array(a, copy=True)


def ix_(*args: Any) -> Any:
    """``tnp.ix_``: open meshes for cross-indexing."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.shape.rank is not None and a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        if a.dtype is _fn_dtypes.bool_:
            a = _array_ops.reshape(_array_ops.where(a), [-1])
        out.append(_array_ops.reshape(a, [1] * i + [-1] + [1] * (n - i - 1)))
    return out


def diag_indices(n: int, ndim: int = 2) -> Any:
    """``tnp.diag_indices``."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (_array_ops.range(n),) * ndim
