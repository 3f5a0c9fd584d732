"""``fn.TensorSpec``: the type of a tensor argument (``tf.TensorSpec``)."""

from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn.dtypes import DType, as_dtype, float32
from fn._tensor.tensor_shape import TensorShape


class TensorSpec:
    """Describes a tensor by shape, dtype and an optional name, like ``tf.TensorSpec``."""

    __slots__ = ("_shape", "_dtype", "_name")
    _fn_tensor_spec = True

    def __init__(self, shape: Any, dtype: Any = float32, name: Optional[str] = None) -> None:
        self._shape = TensorShape(shape)
        self._dtype = as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        if name is None and not getattr(tensor, "_is_eager", True):
            name = tensor.name.split(":")[0]
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def name(self) -> Optional[str]:
        return self._name

    def is_compatible_with(self, value: Any) -> bool:
        if isinstance(value, TensorSpec) or _core.is_tensor(value):
            return self._dtype == value.dtype and self._shape.is_compatible_with(value.shape)
        return False

    def is_subtype_of(self, other: "TensorSpec") -> bool:
        return self._dtype == other.dtype and self._shape.is_subtype_of(other.shape)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self._shape == other._shape
            and self._dtype == other._dtype
            and self._name == other._name
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self._shape, self._dtype, self._name)
