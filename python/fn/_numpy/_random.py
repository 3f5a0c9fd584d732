"""``tf.experimental.numpy.random`` (TF's ``np_random``): samples from fn's random ops, seeded by
``fn.random.set_seed``."""
from __future__ import annotations

from typing import Any

import numpy as np

import fn
from fn._numpy import _dtypes
from fn._numpy._utils import asarray

DEFAULT_RANDN_DTYPE = np.float32


def seed(s: Any) -> None:
    """``tnp.random.seed``: sets the global seed (``tf.random.set_seed``)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are supported.") from None
    fn.random.set_seed(s)


def _size(size: Any) -> Any:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) or (isinstance(size, fn.Tensor) and size.shape.rank == 0):
        return (size,)
    return size


def standard_normal(size: Any = None) -> Any:
    """``tnp.random.standard_normal`` (the default float type)."""
    return fn.random.normal(_size(size), dtype=_dtypes.result_type(float))


def randn(*args: Any) -> Any:
    """``tnp.random.randn``: standard normal samples of shape ``args``."""
    return standard_normal(size=args)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
    """``tnp.random.uniform``."""
    dtype = _dtypes.result_type(float)
    low = asarray(low, dtype=dtype)
    high = asarray(high, dtype=dtype)
    if size is None:
        size = fn.shape(low + high)
    return fn.random.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


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
    if dtype not in (fn.int32, fn.int64):
        raise ValueError(f"Argument `dtype` got an invalid value {dtype_orig}. Only those convertible "
                         f"to {(np.int32, np.int64)} are supported.")
    return fn.random.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


def poisson(lam: Any = 1.0, size: Any = None) -> Any:
    """``tnp.random.poisson`` (int64 samples; Knuth's product-of-uniforms method)."""
    shape = fn.convert_to_tensor(_size(size), dtype_hint=fn.int32)
    lam = fn.broadcast_to(fn.cast(lam, fn.float64), fn.cast(shape, fn.int32))
    limit = fn.exp(-lam)

    def cond(k: Any, p: Any) -> Any:
        return fn.reduce_any(p > limit)

    def body(k: Any, p: Any) -> Any:
        active = p > limit
        u = fn.cast(fn.random.uniform(fn.shape(p)), fn.float64)
        return k + fn.cast(active, fn.int64), fn.where(active, p * u, p)
    k0 = fn.zeros_like(lam, dtype=fn.int64)
    k, _ = fn.while_loop(cond, body, (k0, fn.ones_like(lam)))
    return k - fn.cast(lam > 0, fn.int64)
