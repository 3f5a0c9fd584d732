"""``tf.ragged``'s functions that pick a dense or a ragged path (``fn.ragged`` re-exports them)."""

from __future__ import annotations

from typing import Any, Optional

from fn._ops.array_ops import cast, concat, convert_to_tensor, range as _range, shape, stack as dense_stack, zeros
from fn._ops.manip_ops import boolean_mask as dense_mask, repeat
from fn._ragged._array_ops import boolean_mask as _boolean_mask, stack as _stack
from fn._ragged._ragged_tensor import RaggedTensor, _splits_tensor
from fn.dtypes import int64


def boolean_mask(data: Any, mask: Any, name: Optional[str] = None) -> Any:
    """``tf.ragged.boolean_mask``: the values of ``data`` where ``mask`` is True (ragged result)."""
    if not isinstance(data, RaggedTensor) and not isinstance(mask, RaggedTensor):
        return dense_mask(data, mask)
    return _boolean_mask(data, mask)


def stack(values: Any, axis: int = 0, name: Optional[str] = None) -> Any:
    """``tf.ragged.stack``: stacks tensors and RaggedTensors into a RaggedTensor. As TF: vectors
    stacked on axis 0 may differ in length; dense inputs stacked on one of the last two axes give
    a dense ``tf.stack``; other dense inputs are made ragged (ragged_rank 1) first."""
    values = [v if isinstance(v, RaggedTensor) else convert_to_tensor(v) for v in values]
    if values and not any(isinstance(v, RaggedTensor) for v in values):
        ndims = values[0].shape.rank
        for v in values[1:]:
            if ndims is not None and v.shape.rank is not None and v.shape.rank != ndims:
                raise ValueError(f"Shape {v.shape} must have rank {ndims}")
        out_ndims = None if ndims is None else ndims + 1
        ax = axis + out_ndims if (axis < 0 and out_ndims is not None) else axis
        if ndims == 1 and ax == 0:
            lengths = concat([shape(v, out_type=int64) for v in values], 0)
            return RaggedTensor.from_row_lengths(concat(values, 0), lengths)
        if ndims is not None and out_ndims is not None and ax in (out_ndims - 1, ndims - 1):
            return dense_stack(values, ax)
        values = [RaggedTensor.from_tensor(v, ragged_rank=1) for v in values]
    return _stack(values, axis)


def row_splits_to_segment_ids(splits: Any, name: Optional[str] = None, out_type: Any = None) -> Any:
    """``tf.ragged.row_splits_to_segment_ids``: the row of each value."""
    s = _splits_tensor(splits, "splits")
    dt = s.dtype if out_type is None else out_type
    ids = repeat(
        _range(
            cast(0, s.dtype),
            cast(s.shape[0] - 1, s.dtype) if s.shape[0] is not None else cast(0, s.dtype),
            dtype=s.dtype,
        ),
        s[1:] - s[:-1],
    )
    return cast(ids, dt)


def segment_ids_to_row_splits(
    segment_ids: Any, num_segments: Any = None, out_type: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.ragged.segment_ids_to_row_splits``: row splits from sorted segment ids."""
    ids = _splits_tensor(segment_ids, "segment_ids", out_type)
    return RaggedTensor.from_value_rowids(zeros(shape(ids)), ids, num_segments, validate=False).row_splits
