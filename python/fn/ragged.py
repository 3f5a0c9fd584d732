"""``tf.ragged``: building and transforming RaggedTensors."""
from __future__ import annotations

from typing import Any, Optional

from fn._ragged._array_ops import boolean_mask as _boolean_mask, stack as _stack
from fn._ragged._factory import constant, map_flat_values, range  # noqa: A004
from fn._ragged._ragged_tensor import RaggedTensor as _RaggedTensor


def boolean_mask(data: Any, mask: Any, name: Optional[str] = None) -> Any:
    """``tf.ragged.boolean_mask``: the values of ``data`` where ``mask`` is True (ragged result)."""
    if not isinstance(data, _RaggedTensor) and not isinstance(mask, _RaggedTensor):
        from fn._ops.manip_ops import boolean_mask as dense_mask
        return dense_mask(data, mask)
    return _boolean_mask(data, mask)


def stack(values: Any, axis: int = 0, name: Optional[str] = None) -> Any:
    """``tf.ragged.stack``: stacks tensors and RaggedTensors into a RaggedTensor. As TF: vectors
    stacked on axis 0 may differ in length; dense inputs stacked on one of the last two axes give
    a dense ``tf.stack``; other dense inputs are made ragged (ragged_rank 1) first."""
    from fn import convert_to_tensor
    values = [v if isinstance(v, _RaggedTensor) else convert_to_tensor(v) for v in values]
    if values and not any(isinstance(v, _RaggedTensor) for v in values):
        from fn._ops.array_ops import concat, shape, stack as dense_stack
        ndims = values[0].shape.rank
        for v in values[1:]:
            if ndims is not None and v.shape.rank is not None and v.shape.rank != ndims:
                raise ValueError(f"Shape {v.shape} must have rank {ndims}")
        out_ndims = None if ndims is None else ndims + 1
        ax = axis + out_ndims if (axis < 0 and out_ndims is not None) else axis
        if ndims == 1 and ax == 0:
            from fn.dtypes import int64
            lengths = concat([shape(v, out_type=int64) for v in values], 0)
            return _RaggedTensor.from_row_lengths(concat(values, 0), lengths)
        if ndims is not None and ax in (out_ndims - 1, ndims - 1):
            return dense_stack(values, ax)
        values = [_RaggedTensor.from_tensor(v, ragged_rank=1) for v in values]
    return _stack(values, axis)


def row_splits_to_segment_ids(splits: Any, name: Optional[str] = None, out_type: Any = None) -> Any:
    """``tf.ragged.row_splits_to_segment_ids``: the row of each value."""
    from fn._ops.array_ops import cast, range as _range
    from fn._ops.manip_ops import repeat
    from fn._ragged._ragged_tensor import _splits_tensor
    s = _splits_tensor(splits, "splits")
    dt = s.dtype if out_type is None else out_type
    ids = repeat(_range(cast(0, s.dtype), cast(s.shape[0] - 1, s.dtype) if s.shape[0] is not None else
                        cast(0, s.dtype), dtype=s.dtype), s[1:] - s[:-1])
    return cast(ids, dt)


def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None, out_type: Any = None,
                              name: Optional[str] = None) -> Any:
    """``tf.ragged.segment_ids_to_row_splits``: row splits from sorted segment ids."""
    from fn._ops.array_ops import shape, zeros
    from fn._ragged._ragged_tensor import _splits_tensor
    ids = _splits_tensor(segment_ids, "segment_ids", out_type)
    return _RaggedTensor.from_value_rowids(zeros(shape(ids)), ids, num_segments, validate=False).row_splits


from fn._public import export as _export  # noqa: E402
_export(globals())
