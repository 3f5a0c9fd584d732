"""``tf.experimental.DynamicRaggedShape``: the shape of a RaggedTensor (what ``tf.shape`` returns
for one): row partitions for the ragged dimensions, then the flat values' dense shape. Used by
``tf.reshape``/``tf.zeros``/``tf.ones``/``tf.fill`` to build RaggedTensors of that shape."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, convert_to_tensor, reshape, shape as _shape
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged._row_partition import RowPartition
from fn.dtypes import as_dtype, int64
from fn.dtypes import int32
from fn._ops.array_ops import zeros as dense_zeros
from fn._ops.array_ops import ones as dense_ones
from fn._ops.array_ops import fill as dense_fill
from fn._ops.array_ops import stack


class DynamicRaggedShape:
    """``tf.experimental.DynamicRaggedShape(row_partitions, inner_shape, dtype)``."""

    def __init__(
        self,
        row_partitions: Sequence[RowPartition],
        inner_shape: Any,
        dtype: Any = None,
        validate: bool = True,
        static_inner_shape: Any = None,
    ) -> None:
        parts = list(row_partitions)
        if dtype is None:
            dtype = parts[0].dtype if parts else (inner_shape.dtype if _core.is_tensor(inner_shape) else int64)
        self._dtype = as_dtype(dtype)
        self._row_partitions = tuple(p if p.dtype == self._dtype else p.with_dtype(self._dtype) for p in parts)
        inner = (
            inner_shape
            if _core.is_tensor(inner_shape)
            else convert_to_tensor(np.asarray(list(inner_shape), self._dtype.as_numpy_dtype).reshape([-1]))
        )
        self._inner_shape = inner if inner.dtype == self._dtype else cast(inner, self._dtype)

    @classmethod
    def from_lengths(
        cls, lengths: Sequence[Any], num_row_partitions: Optional[int] = None, dtype: Any = int64
    ) -> "DynamicRaggedShape":
        """``DynamicRaggedShape.from_lengths``: ints for uniform dims, tuples of row lengths for
        ragged ones."""
        lengths = list(lengths)
        if num_row_partitions is None:
            ragged = [i for i, x in enumerate(lengths) if isinstance(x, (tuple, list))]
            num_row_partitions = ragged[-1] if ragged else 0
        if not lengths:
            return cls([], [], dtype)
        total = int(lengths[0])
        parts = []
        for i in range(1, num_row_partitions + 1):
            x = lengths[i]
            if isinstance(x, (tuple, list)):
                if len(x) != total:
                    raise ValueError(
                        f"Length of lengths[{i}] = {len(x)} does not match the product of the "
                        f"previous dimensions {total}"
                    )
                parts.append(RowPartition.from_row_lengths(list(x), dtype=dtype))
                total = int(sum(x))
            else:
                parts.append(RowPartition.from_uniform_row_length(int(x), total * int(x), nrows=total, dtype=dtype))
                total *= int(x)
        inner = [total] + [int(x) for x in lengths[num_row_partitions + 1 :]]
        return cls(parts, inner, dtype)

    @classmethod
    def from_tensor(cls, t: Any, dtype: Any = None) -> "DynamicRaggedShape":
        """``DynamicRaggedShape.from_tensor``: the shape of a Tensor or RaggedTensor."""
        if isinstance(t, RaggedTensor):
            parts = []
            level: Any = t
            while isinstance(level, RaggedTensor):
                parts.append(RowPartition(level.row_splits, level.uniform_row_length, internal=True))
                level = level.values
            dt = as_dtype(dtype) if dtype is not None else t.row_splits.dtype
            return cls(parts, _shape(level, out_type=dt), dt)
        x = t if _core.is_tensor(t) else convert_to_tensor(t)
        dt = as_dtype(dtype) if dtype is not None else int64
        return cls([], _shape(x, out_type=dt), dt)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def row_partitions(self) -> tuple:
        return self._row_partitions

    @property
    def num_row_partitions(self) -> int:
        return len(self._row_partitions)

    @property
    def inner_shape(self) -> Any:
        return self._inner_shape

    @property
    def inner_rank(self) -> Optional[int]:
        return self._inner_shape.shape[0]

    @property
    def rank(self) -> Optional[int]:
        r = self.inner_rank
        return None if r is None else r + self.num_row_partitions

    def _inner_list(self) -> List[Any]:
        if self._inner_shape._is_eager:
            return [int(d) for d in self._inner_shape.numpy().tolist()]
        return [None] * (self.inner_rank or 0)

    def static_lengths(self, ragged_lengths: bool = True) -> List[Any]:
        if not self._row_partitions:
            return self._inner_list()
        dims: List[Any] = [self._row_partitions[0].static_nrows]
        for rp in self._row_partitions:
            if rp.is_uniform():
                dims.append(rp.static_uniform_row_length)
            elif ragged_lengths and rp.row_splits()._is_eager:
                dims.append(tuple(int(v) for v in rp.row_lengths().numpy().tolist()))
            else:
                dims.append(None)
        return dims + self._inner_list()[1:]

    def is_uniform(self, axis: int) -> bool:
        if axis == 0 or axis > self.num_row_partitions:
            return True
        return self._row_partitions[axis - 1].is_uniform()

    def __repr__(self) -> str:
        text = ", ".join(str(x) for x in self.static_lengths())
        return f"<DynamicRaggedShape lengths=[{text}] num_row_partitions={self.num_row_partitions!r}>"

    def _known_rank(self) -> int:
        if self.rank is None:
            raise ValueError("The rank of this DynamicRaggedShape is not known.")
        return self.rank

    def _dimension(self, index: int) -> Any:
        rank = self._known_rank()
        if index >= rank:
            raise IndexError("Index is too big: " + str(index) + ">=" + str(rank))
        if index < 0:
            raise IndexError("Index must be non-negative: " + str(index))
        if not self.is_uniform(index):
            raise ValueError("Index " + str(index) + " is not uniform")
        if index == 0 and self._row_partitions:
            return self._row_partitions[0].nrows()
        if not self._row_partitions:
            return self._inner_shape[index]
        if index > self.num_row_partitions:
            return self._inner_shape[index - self.num_row_partitions]
        return self._row_partitions[index - 1].uniform_row_length()

    def __getitem__(self, index: Any) -> Any:
        rank = self._known_rank()
        if isinstance(index, slice):
            if index.step is not None and index.step != 1:
                raise IndexError("Cannot stride through a shape")
            start, stop, _ = index.indices(rank)
            stop = max(start, stop)
            if start != 0:
                if any(not self.is_uniform(i) for i in range(start, stop)):
                    raise ValueError("All relevant dimensions must be uniform")
                dims = [self._dimension(i) for i in range(start, stop)]

                return DynamicRaggedShape([], stack(dims) if dims else [], self._dtype)
            nrp = self.num_row_partitions
            if stop == 0:
                return DynamicRaggedShape([], [], self._dtype)
            if stop <= nrp:
                parts = self._row_partitions[: stop - 1]
                nvals = parts[-1].nvals() if parts else self._row_partitions[0].nrows()
                return DynamicRaggedShape(parts, reshape(nvals, [1]), self._dtype)
            return DynamicRaggedShape(self._row_partitions, self._inner_shape[: stop - nrp], self._dtype)
        if isinstance(index, int):
            if index < 0:
                return self._dimension(rank + index)
            return self._dimension(index)
        raise TypeError("Argument is not an int or a slice")

    def _with_partitions(self, flat: Any) -> Any:
        """``flat`` (shaped as inner_shape) under this shape's row partitions."""
        result = flat
        for rp in reversed(self._row_partitions):
            splits = rp.row_splits()
            if isinstance(result, RaggedTensor) and result.row_splits.dtype != splits.dtype:
                result = result.with_row_splits_dtype(splits.dtype)
            result = RaggedTensor(result, splits, internal=True, uniform_row_length=rp.uniform_row_length())
        return result


def shape(input: Any, out_type: Any = None, name: Optional[str] = None) -> DynamicRaggedShape:
    """``tf.shape`` of a RaggedTensor: its DynamicRaggedShape (int32 unless ``out_type``)."""

    return DynamicRaggedShape.from_tensor(input, out_type if out_type is not None else int32)


def _flat_shape(s: DynamicRaggedShape) -> Any:
    return cast(s.inner_shape, int64)


def reshape_to(tensor: Any, s: DynamicRaggedShape, name: Optional[str] = None) -> Any:
    """``tf.reshape(tensor, ragged_shape)``."""
    t = tensor.flat_values if isinstance(tensor, RaggedTensor) else tensor
    t = t if _core.is_tensor(t) else convert_to_tensor(t)
    return s._with_partitions(reshape(t, _flat_shape(s)))


def zeros(s: DynamicRaggedShape, dtype: Any = "float32", name: Optional[str] = None) -> Any:

    return s._with_partitions(dense_zeros(_flat_shape(s), dtype))


def ones(s: DynamicRaggedShape, dtype: Any = "float32", name: Optional[str] = None) -> Any:

    return s._with_partitions(dense_ones(_flat_shape(s), dtype))


def fill(dims: DynamicRaggedShape, value: Any, name: Optional[str] = None) -> Any:

    return dims._with_partitions(dense_fill(_flat_shape(dims), value))
