"""Array creation ops: ``fn.constant``, ``fn.fill``, ``fn.ones``, ``fn.zeros`` (TensorFlow's names)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core
from fn.dtypes import DType, as_dtype, float32
from fn.tensor_shape import TensorShape


def _dt(dtype: Any) -> Optional[DType]:
    return None if dtype is None else as_dtype(dtype)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Any:
    """Creates a constant tensor (``tf.constant``): Python ints become int32, floats float32,
    str/bytes string; NumPy arrays keep their dtype. Inside a Function it is a Const node."""
    dtype = _dt(dtype)
    if _core.is_tensor(value) and value._is_eager:
        t = value if dtype is None or value.dtype == dtype else cast(value, dtype)
    else:
        t = _core.to_eager(value, dtype)
    if shape is not None:
        shape = TensorShape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"Shape must be fully defined, got {shape}")
        n = shape.num_elements()
        have = t.shape.num_elements()
        if have == n:
            t = _core.reshape_eager(t, shape)
        elif have == 1:
            t = _core.execute("Fill", [_core.to_eager(shape.as_list(), "int32"), _core.reshape_eager(t, [])])[0]
        else:
            raise TypeError(
                f"Eager execution of fn.constant with unsupported shape. Tensor {np.asarray(t.numpy())} "
                f"(converted from {value!r}) has {have} elements, but got `shape` {tuple(shape.as_list())} "
                f"with {n} elements).")
    if not _core.executing_eagerly():
        return _core.execute("Const", [], {"value": t, "dtype": t.dtype}, name)[0]
    return t


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: Optional[str] = None) -> Any:
    """``tf.convert_to_tensor``: tensors pass through, Python/NumPy values become constants."""
    return _core.convert_to_tensor(value, _dt(dtype), _dt(dtype_hint))


def _shape_tensor(shape: Any) -> Any:
    if _core.is_tensor(shape):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, int):
        shape = [shape]
    if any(_core.is_tensor(d) for d in shape):
        from fn import math_ops  # stack of scalar tensors
        return math_ops.stack([convert_to_tensor(d, "int32") for d in shape])
    return convert_to_tensor(list(shape), "int32") if len(shape) else convert_to_tensor(np.zeros([0], np.int32))


def fill(dims: Any, value: Any, name: Optional[str] = None) -> Any:
    """``tf.fill``: a tensor of shape ``dims`` filled with the scalar ``value``."""
    return _core.execute("Fill", [_shape_tensor(dims), convert_to_tensor(value)], None, name)[0]


def ones(shape: Any, dtype: Any = float32, name: Optional[str] = None) -> Any:
    """``tf.ones``."""
    dtype = as_dtype(dtype)
    return _core.execute("Fill", [_shape_tensor(shape), convert_to_tensor(1, dtype)], None, name or "ones")[0]


def zeros(shape: Any, dtype: Any = float32, name: Optional[str] = None) -> Any:
    """``tf.zeros``."""
    dtype = as_dtype(dtype)
    value = "" if dtype.name == "string" else 0
    return _core.execute("Fill", [_shape_tensor(shape), convert_to_tensor(value, dtype)], None, name or "zeros")[0]


def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Any:
    """``tf.cast``."""
    dtype = as_dtype(dtype)
    x = convert_to_tensor(x)
    if x.dtype == dtype:
        return x
    if not _core.has_op("Cast"):
        raise NotImplementedError("fn.cast needs the Cast op")
    return _core.execute("Cast", [x], {"SrcT": x.dtype, "DstT": dtype, "Truncate": False}, name)[0]
