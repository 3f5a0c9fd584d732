"""Shape-changing ops on RaggedTensors: ``tf.size``, ``tf.rank``, ``tf.expand_dims``,
``tf.squeeze`` (its error), ``tf.tile``; and the n-ary ``tf.where``/``tf.add_n``."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn._ops.array_ops import convert_to_tensor, size as _size
from fn._ragged._ragged_tensor import RaggedTensor
from fn.dtypes import as_dtype, int32
from fn._ops.array_ops import expand_dims as dense_expand_dims
from fn._ops.array_ops import squeeze as dense_squeeze
from fn._ops.array_ops import where as dense_where
from fn._ragged._elementwise import _dense_operand, assert_same_partitions, dense_like_flat_values
from fn._ops.math_ops import add
from fn._ragged._elementwise import binary


def size(input: Any, out_type: Any = None, name: Optional[str] = None) -> Any:
    """``tf.size`` of a RaggedTensor: the number of values."""
    return _size(input.flat_values, out_type=as_dtype(out_type) if out_type is not None else int32)


def rank(input: Any, name: Optional[str] = None) -> Any:
    """``tf.rank`` of a RaggedTensor (static)."""
    return convert_to_tensor(np.array(input.shape.rank, np.int32))


def expand_dims(input: Any, axis: int, name: Optional[str] = None) -> Any:
    """``tf.expand_dims`` of a RaggedTensor: a new uniform dimension of size 1 at ``axis``."""
    rt = input
    r = rt.shape.rank
    if axis < 0:
        axis += r + 1
    if not 0 <= axis <= r:
        raise ValueError(f"axis={axis} out of bounds: expected {-r - 1}<=axis<{r + 1}")
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(rt, rt.nrows(), nrows=1, validate=False)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(rt, 1, nrows=rt.nrows(), validate=False)
    if isinstance(rt.values, RaggedTensor):
        return rt.with_values(expand_dims(rt.values, axis - 1))

    return rt.with_values(dense_expand_dims(rt.values, axis - 1))


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """``tf.squeeze`` of a RaggedTensor: uniform inner dimensions of size 1 only."""
    if axis is None:
        raise ValueError("Ragged.squeeze must have an axis argument.")
    rt = input
    axes = [axis] if isinstance(axis, int) else list(axis)
    r = rt.shape.rank
    axes = [a + r if a < 0 else a for a in axes]
    if any(a <= rt.ragged_rank for a in axes):
        raise ValueError("Cannot squeeze a ragged dimension in fn yet")

    return rt.with_flat_values(dense_squeeze(rt.flat_values, [a - rt.ragged_rank for a in axes]))


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Any:
    """``tf.where(condition, x, y)`` with RaggedTensor operands (equal partitions, or dense
    operands broadcast onto them)."""
    if x is None and y is None:
        raise NotImplementedError("tf.where(condition) of a RaggedTensor in fn")

    ref = next(v for v in (condition, x, y) if isinstance(v, RaggedTensor))

    def flat(v: Any, hint: Any) -> Any:
        if isinstance(v, RaggedTensor):
            assert_same_partitions(ref, v)
            return v.flat_values
        return dense_like_flat_values(_dense_operand(v, hint), ref)

    other = x if isinstance(x, RaggedTensor) else y if isinstance(y, RaggedTensor) else None
    hint = other.dtype if other is not None else None
    return ref.with_flat_values(dense_where(flat(condition, None), flat(x, hint), flat(y, hint)))


def add_n(inputs: Any, name: Optional[str] = None) -> Any:
    """``tf.add_n`` of RaggedTensors."""

    values = list(inputs)
    total = values[0]
    for v in values[1:]:
        total = binary(add, total, v)
    return total
