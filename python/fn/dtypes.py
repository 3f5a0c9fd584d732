"""Data types, mirroring ``tf.dtypes`` (``fn.float32`` is ``tf.float32``)."""

from __future__ import annotations

from typing import Any

import numpy as np

_NAMES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "string",
    "resource",
    "variant",
    "complex64",
    "complex128",
    "uint16",  # appended: the index is the C++ DType enum value
    "uint32",
    "uint64",
]


class DType:
    """A tensor element type, like ``tf.DType``. Instances are canonical: compare with ``==``."""

    __slots__ = ("_type_enum", "name")

    def __init__(self, type_enum: int, name: str) -> None:
        self._type_enum = type_enum
        self.name = name

    @property
    def is_floating(self) -> bool:
        return self.name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_integer(self) -> bool:
        return self.name in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")

    @property
    def is_complex(self) -> bool:
        return self.name in ("complex64", "complex128")

    @property
    def real_dtype(self) -> "DType":
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_unsigned(self) -> bool:
        return self.name in ("uint8", "uint16", "uint32", "uint64")

    @property
    def is_numeric(self) -> bool:
        return self.is_floating or self.is_integer

    @property
    def is_numpy_compatible(self) -> bool:
        return self.name not in ("resource", "variant")

    @property
    def as_numpy_dtype(self) -> Any:
        """The NumPy type (``np.float32``; strings are ``object``; bfloat16 has none: float32)."""
        return _NUMPY[self.name]

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def size(self) -> int:
        return np.dtype(self.as_numpy_dtype).itemsize if self.name != "string" else 0

    @property
    def min(self) -> Any:
        return np.finfo(self.as_numpy_dtype).min if self.is_floating else np.iinfo(self.as_numpy_dtype).min

    @property
    def max(self) -> Any:
        return np.finfo(self.as_numpy_dtype).max if self.is_floating else np.iinfo(self.as_numpy_dtype).max

    def is_compatible_with(self, other: Any) -> bool:
        return self == as_dtype(other)

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return "fn." + self.name

    def __str__(self) -> str:
        return "<dtype: %r>" % self.name

    def __reduce__(self):
        return as_dtype, (self.name,)


_ALL = [DType(i, n) for i, n in enumerate(_NAMES)]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"double": _BY_NAME["float64"], "half": _BY_NAME["float16"], "float": _BY_NAME["float32"]})

(
    bool_,
    int8,
    uint8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    string,
    resource,
    variant,
    complex64,
    complex128,
    uint16,
    uint32,
    uint64,
) = _ALL
half, double = float16, float64

_NUMPY = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
    "string": object,
    "resource": object,
    "variant": object,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
}


# types.proto's DataType numbers for the dtypes fn has
_ENUM = {
    1: "float32",
    2: "float64",
    3: "int32",
    4: "uint8",
    5: "int16",
    6: "int8",
    7: "string",
    8: "complex64",
    9: "int64",
    10: "bool",
    14: "bfloat16",
    17: "uint16",
    18: "complex128",
    19: "float16",
    20: "resource",
    21: "variant",
    22: "uint32",
    23: "uint64",
}


def as_dtype(type_value: Any) -> DType:
    """Converts a DType, name, NumPy dtype or Python type to a ``fn.DType`` (``tf.as_dtype``)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    if type_value is bool:
        return bool_
    if type_value is int:
        return int32
    if type_value is float:
        return float32
    if type_value in (str, bytes):
        return string
    if type_value is None:  # NumPy reads None as float64; TF refuses it
        raise TypeError("Cannot convert value None to a TensorFlow DType.")
    if isinstance(type_value, (int, np.integer)) and not isinstance(type_value, bool):
        # TF reads an int as a DataType enum value (types.proto: 3 is DT_INT32)
        d = _BY_NAME.get(_ENUM.get(int(type_value), ""))
        if d is None:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
        return d
    try:
        npd = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if npd.kind in "OSU":
        return string
    d = _BY_NAME.get(npd.name)
    if d is None:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
    return d


from fn._public import export as _export

_export(globals(), hide=["bool_"])
