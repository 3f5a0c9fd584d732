"""``tf.experimental.numpy``'s dtypes and NumPy type promotion (TF's ``np_dtypes``/``np_utils``).

Dtypes are NumPy's type objects (``tnp.float32 is np.float32``, as in TF); results are fn
``DType``s computed by ``np.result_type`` over the operands, with Python floats read as float32
when ``prefer_float32`` is on.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from fn import dtypes as _fn_dtypes

bool_ = np.bool_
complex128 = np.complex128
complex64 = np.complex64
complex_ = np.complex128
float16 = np.float16
float32 = np.float32
float64 = np.float64
float_ = np.float64
inexact = np.inexact
int_ = np.int_
int16 = np.int16
int32 = np.int32
int64 = np.int64
int8 = np.int8
object_ = np.object_
string_ = np.bytes_
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
uint8 = np.uint8
unicode_ = np.str_
iinfo = np.iinfo
issubdtype = np.issubdtype

_prefer_float32 = False
_allow_float64 = True
_to_float32 = {np.dtype("float64"): np.dtype("float32"), np.dtype("complex128"): np.dtype("complex64")}


def is_prefer_float32() -> bool:
    return _prefer_float32


def set_prefer_float32(b: bool) -> None:
    global _prefer_float32
    _prefer_float32 = bool(b)


def is_allow_float64() -> bool:
    return _allow_float64


def set_allow_float64(b: bool) -> None:
    global _allow_float64
    _allow_float64 = bool(b)


def canonicalize_dtype(dtype: Any) -> Any:
    if not _allow_float64:
        return _to_float32.get(np.dtype(dtype), dtype)
    return dtype


def default_float_type() -> Any:
    """float64 (NumPy's default) unless ``prefer_float32`` is on or float64 is not allowed."""
    return np.float64 if (not _prefer_float32 and _allow_float64) else np.float32


def to_numpy_type(dtype: Any) -> Any:
    """A NumPy type for a TF/fn dtype, NumPy dtype or Python type."""
    if isinstance(dtype, _fn_dtypes.DType):
        return dtype.as_numpy_dtype
    return np.dtype(dtype).type


def _np_result_type(*arrays_and_dtypes: Any) -> Any:
    def preprocess_float(x: Any) -> Any:
        if _prefer_float32:
            if isinstance(x, float):
                return np.float32(x)
            if isinstance(x, complex):
                return np.complex64(x)
        return x

    return np.result_type(*[preprocess_float(x) for x in arrays_and_dtypes])


def as_fn_dtype(np_dtype: Any) -> Any:
    return _fn_dtypes.as_dtype(canonicalize_dtype(np.dtype(np_dtype)))


def _maybe_get_dtype(x: Any) -> Any:
    """A NumPy type (or the Python number itself, which NumPy treats as weakly typed)."""
    if isinstance(x, numbers.Real) and not isinstance(x, np.generic):
        return x
    dt = getattr(x, "dtype", None)
    if isinstance(dt, _fn_dtypes.DType):  # fn tensors, Variables, IndexedSlices
        return dt.as_numpy_dtype
    if isinstance(x, _fn_dtypes.DType):
        return x.as_numpy_dtype
    if isinstance(x, (list, tuple)):
        raise ValueError(
            "Cannot find dtype for type inference from argument `x` of a sequence "
            f"type {type(x)}. For sequences, please call this function on each element individually."
        )
    return x


def _flatten(values: Any) -> list:
    out: list = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


def result_type(*arrays_and_dtypes: Any) -> Any:
    """``tf.experimental.numpy.result_type``: NumPy's ``result_type`` over the operands' dtypes,
    returned as an fn ``DType``."""
    flat = [_maybe_get_dtype(x) for x in _flatten(arrays_and_dtypes)]
    if not flat:
        flat = [np.asarray([])]
    return as_fn_dtype(_np_result_type(*flat))


def result_type_unary(a: Any, dtype: Any) -> Any:
    if dtype:
        return result_type(dtype)
    if isinstance(a, str):
        return np.str_
    if isinstance(a, bytes):
        return np.bytes_
    return result_type(a)


def result_type_binary(t1: Any, t2: Any) -> Any:
    try:
        return as_fn_dtype(_np_result_type(_maybe_get_dtype(t1), _maybe_get_dtype(t2)))
    except ValueError:
        return result_type(t1, t2)


def promote_types(type1: Any, type2: Any) -> Any:
    """``tf.experimental.numpy.promote_types``: NumPy's ``promote_types`` (a NumPy dtype)."""
    return canonicalize_dtype(np.promote_types(to_numpy_type(type1), to_numpy_type(type2)))


def finfo(dtype: Any) -> Any:
    """``tf.experimental.numpy.finfo``: NumPy's ``finfo`` of the dtype (fn dtypes accepted)."""
    return np.finfo(to_numpy_type(dtype))


def is_inexact(dtype: Any) -> bool:
    return np.issubdtype(to_numpy_type(dtype), np.inexact)
