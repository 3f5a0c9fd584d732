"""Array ops on RaggedTensors: gather, concat/stack, reverse, boolean_mask and reductions
(TF's ``ragged_gather_ops``, ``ragged_concat_ops``, ``ragged_math_ops``), composed of fn ops."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from fn import _core
from fn._ops.array_ops import (
    cast,
    concat as _concat,
    convert_to_tensor,
    expand_dims,
    gather as _gather,
    range as _range,
    reshape,
    stack as _stack,
    zeros,
)
from fn._ops.manip_ops import boolean_mask as _boolean_mask, repeat
from fn._ragged._ragged_tensor import RaggedTensor
from fn.dtypes import float64
from fn._tensor.tensor_shape import known_rank
from fn._ragged._factory import range as ragged_range
from fn._ops.array_ops import scatter_nd
from fn._ops.sort_ops import cumsum
from fn._ops.array_ops import where
from fn._ragged._conversion import _dense_rows
from fn._ops.math_ops import reduce_max
from fn._ops.math_ops import reduce_sum
from fn._ops.math_ops import ones_like
from fn._ops.array_ops import shape as _shape
from fn._ops.manip_ops import reverse as dense_reverse
from fn._ragged._elementwise import assert_same_partitions
from fn._ops.array_ops import tile as dense_tile


def gather_rows(values: Any, idx: Any) -> Any:
    """Rows ``idx`` of ``values`` (a Tensor or a RaggedTensor)."""
    if isinstance(values, RaggedTensor):
        return ragged_gather(values, idx)
    return _gather(values, idx)


def ragged_gather(rt: RaggedTensor, indices: Any) -> Any:
    """``tf.gather(rt, indices)`` along axis 0 (``indices`` of any rank)."""

    dt = rt.row_splits.dtype
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(ragged_gather(rt, indices.flat_values))
    idx = indices if _core.is_tensor(indices) else convert_to_tensor(indices)
    if idx.shape.rank == 0:
        return rt[idx]
    if idx.shape.rank != 1:
        # Gather the flattened indices, then restore the index dimensions as uniform partitions.

        out = ragged_gather(rt, reshape(idx, [-1]))
        dims = _shape(idx, out_type=dt)
        for axis in range(idx.shape.rank - 1, 0, -1):
            uniform = RaggedTensor.from_uniform_row_length(out, dims[axis], validate=False)
            out = RaggedTensor.from_row_splits(out, uniform.row_splits, validate=False)  # TF: (None) dims
        return out
    idx = cast(idx, dt)
    starts = _gather(rt.row_splits[:-1], idx)
    limits = _gather(rt.row_splits[1:], idx)
    inner = ragged_range(starts, limits, row_splits_dtype=dt)
    return RaggedTensor.from_row_splits(gather_rows(rt.values, inner.values), inner.row_splits, validate=False)


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: Optional[str] = None,
) -> Any:
    """``tf.gather`` with a ragged ``params`` or ``indices`` (axis 0, batch_dims 0)."""
    if (axis not in (None, 0)) or batch_dims != 0:
        raise NotImplementedError("tf.gather on RaggedTensors supports axis=0 and batch_dims=0 in fn")
    if isinstance(params, RaggedTensor):
        if _core.is_tensor(indices) or not isinstance(indices, RaggedTensor):
            idx = indices if _core.is_tensor(indices) else convert_to_tensor(indices)
            if idx.shape.rank == 0:
                return params[idx]
        return ragged_gather(params, indices)
    p = params if _core.is_tensor(params) else convert_to_tensor(params)
    return indices.with_flat_values(_gather(p, indices.flat_values))


def _check_splits_dtypes(values: List[Any]) -> None:
    if len({v.row_splits.dtype for v in values if isinstance(v, RaggedTensor)}) > 1:
        raise ValueError(
            "Input RaggedTensors have mismatched row_splits dtypes; use "
            "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
        )


def _as_ragged(x: Any, ragged_rank: int, splits_dtype: Any, dtype: Any = None) -> RaggedTensor:
    if isinstance(x, RaggedTensor):
        return x
    t = x if _core.is_tensor(x) else _core.convert_to_tensor(x, None, dtype)
    return RaggedTensor.from_tensor(t, ragged_rank=min(ragged_rank, t.shape.rank - 1), row_splits_dtype=splits_dtype)


def concat(values: Sequence[Any], axis: int, name: Optional[str] = None) -> Any:
    """``tf.concat`` of RaggedTensors (and dense tensors, made ragged) along ``axis``."""
    values = list(values)
    _check_splits_dtypes(values)
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    values = [
        v if isinstance(v, RaggedTensor) or _core.is_tensor(v) else _core.convert_to_tensor(v, None, ragged[0].dtype)
        for v in values
    ]
    rank = values[0].shape.rank
    for v in values[1:]:
        if v.shape.rank is not None and rank is not None and v.shape.rank != rank:
            raise ValueError(f"Shape {v.shape} must have rank {rank}")
    rr = max(r.ragged_rank for r in ragged)
    dt = ragged[0].row_splits.dtype
    rts = [_as_ragged(v, rr, dt, ragged[0].dtype) for v in values]
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    return _concat_ragged(rts, axis)


def _concat_ragged(rts: List[Any], axis: int) -> Any:
    if not isinstance(rts[0], RaggedTensor):
        return _concat(rts, axis)
    if axis == 0:
        return _concat_rows(rts)
    if axis == 1:
        return _concat_within_rows(rts)
    return rts[0].with_values(_concat_ragged([r.values for r in rts], axis - 1))


def _concat_rows(rts: List[RaggedTensor]) -> RaggedTensor:
    splits = [rts[0].row_splits]
    offset = rts[0].row_splits[-1]
    for r in rts[1:]:
        splits.append(r.row_splits[1:] + offset)
        offset = offset + r.row_splits[-1]
    vals = [r.values for r in rts]
    values = _concat_rows(vals) if isinstance(vals[0], RaggedTensor) else _concat(vals, 0)
    return RaggedTensor.from_row_splits(values, _concat(splits, 0), validate=False)


def _concat_within_rows(rts: List[RaggedTensor]) -> RaggedTensor:
    """Row i of the result is row i of every input, in order: the inputs' values gathered by
    the inverse of the permutation that interleaves them."""

    dt = rts[0].row_splits.dtype
    lengths = [r.row_splits[1:] - r.row_splits[:-1] for r in rts]
    total = lengths[0]
    for ln in lengths[1:]:
        total = total + ln

    out_splits = _concat([convert_to_tensor(np.zeros([1], dt.as_numpy_dtype)), cumsum(total)], 0)
    positions = []
    before = 0 * total
    for r, ln in zip(rts, lengths):
        rowids = r.value_rowids()
        n = r.row_splits[-1]
        within = _range(cast(0, dt), n, dtype=dt) - _gather(r.row_splits, rowids)
        positions.append(_gather(out_splits[:-1] + before, rowids) + within)
        before = before + ln
    perm = _concat(positions, 0)
    size = out_splits[-1]
    inverse = scatter_nd(expand_dims(perm, 1), _range(cast(0, dt), size, dtype=dt), expand_dims(size, 0))
    vals = [r.values for r in rts]
    values = _concat_rows(vals) if isinstance(vals[0], RaggedTensor) else _concat(vals, 0)
    return RaggedTensor.from_row_splits(gather_rows(values, inverse), out_splits, validate=False)


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Any:
    """``tf.stack`` of RaggedTensors (and tensors, made ragged) along ``axis``."""
    values = list(values)
    _check_splits_dtypes(values)
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    rank = known_rank(ragged[0].shape)
    if axis < 0:
        axis += rank + 1
    if not 0 <= axis <= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank - 1}<=axis<{rank + 1}")
    dt = ragged[0].row_splits.dtype
    rr = max(r.ragged_rank for r in ragged)
    rts = [_as_ragged(v, rr, dt, ragged[0].dtype) for v in values]
    if axis != 0:
        from fn._ragged._shape_ops import expand_dims

        return concat([expand_dims(r, axis) for r in rts], axis)
    stacked = _concat_rows(rts)
    n = [r.nrows() for r in rts]

    splits = _concat([convert_to_tensor(np.zeros([1], dt.as_numpy_dtype)), cumsum(_stack(n))], 0)
    return RaggedTensor.from_row_splits(stacked, splits, validate=False)


def _static_axis(axis: Any) -> list:
    """A ragged op's axis as a list of Python ints: it must be known while tracing (TF's
    ragged reductions read a tensor axis's constant value; fn has it for eager tensors)."""
    if _core.is_tensor(axis):
        if not axis._is_eager:
            raise ValueError("axis must be known at graph construction time.")
        axis = np.asarray(axis.numpy()).tolist()
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"axis must be an int; got {type(a).__name__}")
    return axes


def reverse(tensor: RaggedTensor, axis: Any, name: Optional[str] = None) -> Any:
    """``tf.reverse`` of a RaggedTensor along axis 0 or a ragged axis."""
    axes = [int(a) for a in _static_axis(axis)]
    rt = tensor
    rank = known_rank(rt.shape)
    for a in axes:
        rt = _reverse(rt, a + rank if a < 0 else a)
    return rt


def _reverse(rt: Any, axis: int) -> Any:
    if not isinstance(rt, RaggedTensor):
        return dense_reverse(rt, [axis])
    dt = rt.row_splits.dtype
    if axis == 0:
        n = rt.nrows()
        return ragged_gather(rt, n - 1 - _range(cast(0, dt), n, dtype=dt))
    if axis == 1:
        rowids = rt.value_rowids()
        n = rt.row_splits[-1]
        idx = _gather(rt.row_splits[:-1] + rt.row_splits[1:] - 1, rowids) - _range(cast(0, dt), n, dtype=dt)
        return rt.with_values(gather_rows(rt.values, idx))
    return rt.with_values(_reverse(rt.values, axis - 1))


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    """``tf.boolean_mask`` with a ragged ``tensor`` and/or ``mask`` (mask rank 1 or the same
    partitions)."""
    if isinstance(mask, RaggedTensor):
        if not isinstance(tensor, RaggedTensor):
            tensor = RaggedTensor.from_tensor(
                tensor, ragged_rank=mask.ragged_rank, row_splits_dtype=mask.row_splits.dtype
            )

        assert_same_partitions(tensor, mask)
        keep = mask.flat_values
        new_flat = _boolean_mask(tensor.flat_values, keep)
        return _mask_partitions(tensor, keep, new_flat)
    m = mask if _core.is_tensor(mask) else convert_to_tensor(mask)
    if m.shape.rank != 1:
        raise NotImplementedError("tf.boolean_mask of a RaggedTensor with a dense mask of rank > 1 in fn")
    idx = reshape(_where_true(m), [-1])
    return ragged_gather(tensor, idx)


def _where_true(m: Any) -> Any:

    return where(m)


def _mask_partitions(rt: Any, keep: Any, new_flat: Any) -> Any:
    """The partitions of ``rt`` with the masked-out innermost values removed."""
    if not isinstance(rt, RaggedTensor):
        return new_flat

    dt = rt.row_splits.dtype
    if isinstance(rt.values, RaggedTensor):
        inner = _mask_partitions(rt.values, keep, new_flat)
        return RaggedTensor.from_row_splits(inner, rt.row_splits, validate=False)
    kept = _concat([convert_to_tensor(np.zeros([1], dt.as_numpy_dtype)), cumsum(cast(keep, dt))], 0)
    return RaggedTensor.from_row_splits(new_flat, _gather(kept, rt.row_splits), validate=False)


# ------------------------------------------------------------------ reductions


def _identity(kind: str, dtype: Any) -> Any:
    if kind in ("sum", "mean"):
        return zeros([], dtype)
    if kind == "prod":
        return cast(1, dtype)
    if kind in ("any", "all"):
        return convert_to_tensor(kind == "all")
    info: Any = np.finfo(dtype.as_numpy_dtype) if dtype.is_floating else np.iinfo(dtype.as_numpy_dtype)
    return convert_to_tensor(np.array(info.min if kind == "max" else info.max, dtype.as_numpy_dtype))


def reduce(kind: str, dense_op: Any, rt: Any, axis: Any, keepdims: bool) -> Any:
    """``tf.reduce_<kind>(rt, axis)``: ragged axes reduce through a dense view padded with the
    reduction's identity (TF's segment reductions give the same values, empty rows included)."""
    if keepdims:
        raise NotImplementedError("keepdims=True for ragged reductions in fn")
    if not isinstance(rt, RaggedTensor):
        return dense_op(rt, axis)
    if axis is None:
        return dense_op(rt.flat_values, None)
    rank = known_rank(rt.shape)
    axes = _static_axis(axis)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
    axes = sorted({(a + rank if a < 0 else a) for a in axes}, reverse=True)
    out = rt
    for a in axes:
        out = _reduce_axis(kind, dense_op, out, a)
    return out


def _reduce_axis(kind: str, dense_op: Any, rt: Any, axis: int) -> Any:
    if not isinstance(rt, RaggedTensor):
        return dense_op(rt, axis)
    if axis >= 2 or (axis == 1 and isinstance(rt.values, RaggedTensor)):
        if axis >= 2:
            return rt.with_values(_reduce_axis(kind, dense_op, rt.values, axis - 1))

    if kind == "mean":
        values = rt.values
        fdt = values.dtype if values.dtype.is_floating else float64
        if isinstance(values, RaggedTensor):
            raise NotImplementedError("reduce_mean over a ragged axis with ragged values in fn")
        total = _reduce_axis("sum", _sum, rt.with_values(cast(values, fdt)), axis)
        ones = rt.with_values(cast(_ones_like(values), fdt))
        count = _reduce_axis("sum", _sum, ones, axis)
        return total / count
    if isinstance(rt.values, RaggedTensor):
        raise NotImplementedError("reductions over an outer ragged axis of a nested RaggedTensor in fn")
    ident = _identity(kind, rt.dtype)
    width = _row_width(rt)
    dense = _dense_rows(rt.values, rt.row_splits, width, ident, None)
    return dense_op(dense, axis)


def _row_width(rt: RaggedTensor) -> Any:

    dt = rt.row_splits.dtype
    lengths = rt.row_splits[1:] - rt.row_splits[:-1]
    return reduce_max(_concat([lengths, convert_to_tensor(np.zeros([1], dt.as_numpy_dtype))], 0))


def _sum(x: Any, axis: Any) -> Any:

    return reduce_sum(x, axis)


def _ones_like(x: Any) -> Any:

    return ones_like(x)


def tile(input: Any, multiples: Any, name: Optional[str] = None) -> Any:
    """``tf.tile`` of a RaggedTensor (ragged rank 1): rows repeated (axis 0) and each row's
    values repeated (axis 1)."""
    rt = input
    m = multiples.numpy().tolist() if _core.is_tensor(multiples) else list(multiples)
    if len(m) != rt.shape.rank:
        raise ValueError(f"Shape must be rank {rt.shape.rank} but is rank {len(m)} for multiples")
    if rt.ragged_rank != 1:
        raise NotImplementedError("tf.tile of a RaggedTensor with ragged_rank > 1 in fn")
    dt = rt.row_splits.dtype
    n = rt.nrows()
    if m[1] != 1:
        # Each row repeated m[1] times in a row, then every m[1] consecutive rows joined.
        reps = ragged_gather(rt, repeat(_range(cast(0, dt), n, dtype=dt), m[1]))
        rt = RaggedTensor.from_row_splits(reps.values, reps.row_splits[:: m[1]], validate=False)
    if len(m) > 2 and any(x != 1 for x in m[2:]):
        rt = rt.with_values(dense_tile(rt.values, [1] + m[2:]))
    if m[0] != 1:
        idx = reshape(
            _range(cast(0, dt), n, dtype=dt)[None, :] + 0 * _range(cast(0, dt), m[0], dtype=dt)[:, None], [-1]
        )
        rt = ragged_gather(rt, idx)
    return rt
