"""``tf.IndexedSlices``: a sparse set of rows of a dense tensor (``values[i]`` is row
``indices[i]``). fn's gradients are dense, so fn makes these only when a program does; they convert
to a dense tensor (rows with repeated indices summed, as TF) wherever a tensor is needed."""

from __future__ import annotations

from typing import Any, Optional

from fn._tf_compat._types import CompositeTensor
from fn._ops import array_ops as _array_ops
from fn._tensor import tensor_shape as _tensor_shape
from fn._tf_compat import _segment_ops
from fn import dtypes as _dtypes
from fn._tf_compat._static import get_static_value


class IndexedSlices(CompositeTensor):
    """``tf.IndexedSlices(values, indices, dense_shape=None)``."""

    def __init__(self, values: Any, indices: Any, dense_shape: Optional[Any] = None) -> None:

        self._values = _array_ops.convert_to_tensor(values)
        self._indices = _array_ops.convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else _array_ops.convert_to_tensor(dense_shape)

    @property
    def values(self) -> Any:
        return self._values

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def shape(self) -> Any:

        if self._dense_shape is None:
            return _tensor_shape.TensorShape([None]).concatenate(self._values.shape[1:])
        known = get_static_value(self._dense_shape)
        if known is not None:
            return _tensor_shape.TensorShape([int(d) for d in known])
        return _tensor_shape.TensorShape([None]).concatenate(self._values.shape[1:])

    def _fn_cast_values(self, cast_values: Any) -> "IndexedSlices":
        """tf.cast of IndexedSlices: its values cast, indices and dense_shape kept."""
        return IndexedSlices(cast_values(self._values), self._indices, self._dense_shape)

    def __fn_tensor__(self, dtype: Any = None) -> Any:

        if self._dense_shape is None:
            raise ValueError(
                f"Tensor conversion requested for IndexedSlices for argument without dense_shape: {self!r}"
            )
        dense = _segment_ops.unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])
        if dtype is not None and _dtypes.as_dtype(dtype) != dense.dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for Tensor "
                f"with dtype {dense.dtype.name}: {self!r}"
            )
        return dense

    def __neg__(self) -> "IndexedSlices":
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"
