"""``tf.experimental.numpy.random`` (TF's ``np_random``): samples from fn's random ops, seeded by
``fn.random.set_seed``."""

from __future__ import annotations

from typing import Any

import numpy as np

from fn._ops import array_ops as _array_ops
from fn._ops import control_flow_ops as _control_flow_ops
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn._ops import random_ops as _random_ops
from fn._tensor import tensor as _tensor
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes
from fn._numpy._utils import asarray

DEFAULT_RANDN_DTYPE = np.float32


def seed(s: Any) -> None:
    """``tnp.random.seed``: sets the global seed (``tf.random.set_seed``)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are supported.") from None
    _random_ops.set_seed(s)


def _size(size: Any) -> Any:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) or (isinstance(size, _tensor.Tensor) and size.shape.rank == 0):
        return (size,)
    return size


def standard_normal(size: Any = None) -> Any:
    """``tnp.random.standard_normal`` (the default float type)."""
    return _random_ops.normal(_size(size), dtype=_dtypes.result_type(float))


def randn(*args: Any) -> Any:
    """``tnp.random.randn``: standard normal samples of shape ``args``."""
    return standard_normal(size=args)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
    """``tnp.random.uniform``."""
    dtype = _dtypes.result_type(float)
    low = asarray(low, dtype=dtype)
    high = asarray(high, dtype=dtype)
    if size is None:
        size = _array_ops.shape(low + high)
    return _random_ops.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


def random(size: Any = None) -> Any:
    """``tnp.random.random``: uniform on [0, 1)."""
    return uniform(0.0, 1.0, size)


def rand(*size: Any) -> Any:
    """``tnp.random.rand``."""
    return uniform(0.0, 1.0, size)


def randint(low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64) -> Any:
    """``tnp.random.randint``: integers in [low, high) (int32 or int64)."""
    low = int(low)
    if high is None:
        high, low = low, 0
    dtype_orig = dtype
    dtype = _dtypes.result_type(dtype)
    if dtype not in (_fn_dtypes.int32, _fn_dtypes.int64):
        raise ValueError(
            f"Argument `dtype` got an invalid value {dtype_orig}. Only those convertible "
            f"to {(np.int32, np.int64)} are supported."
        )
    return _random_ops.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


def poisson(lam: Any = 1.0, size: Any = None) -> Any:
    """``tnp.random.poisson`` (int64 samples; Knuth's product-of-uniforms method)."""
    shape = _array_ops.convert_to_tensor(_size(size), dtype_hint=_fn_dtypes.int32)
    lam = _manip_ops.broadcast_to(_array_ops.cast(lam, _fn_dtypes.float64), _array_ops.cast(shape, _fn_dtypes.int32))
    limit = _math_ops.exp(-lam)

    def cond(k: Any, p: Any) -> Any:
        return _math_ops.reduce_any(p > limit)

    def body(k: Any, p: Any) -> Any:
        active = p > limit
        u = _array_ops.cast(_random_ops.uniform(_array_ops.shape(p)), _fn_dtypes.float64)
        return k + _array_ops.cast(active, _fn_dtypes.int64), _array_ops.where(active, p * u, p)

    k0 = _math_ops.zeros_like(lam, dtype=_fn_dtypes.int64)
    k, _ = _control_flow_ops.while_loop(cond, body, (k0, _math_ops.ones_like(lam)))
    return k - _array_ops.cast(lam > 0, _fn_dtypes.int64)
