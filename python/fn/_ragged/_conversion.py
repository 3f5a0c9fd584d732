"""RaggedTensor <-> dense (and sparse) conversions: ``to_tensor``, ``from_tensor``, ``merge_dims``.

Compositions of gathers and masks, so they trace and differentiate like any other op."""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    gather,
    range as _range,
    reshape,
    shape as _shape,
    stack,
    expand_dims,
    where,
    zeros,
)
from fn._ops.manip_ops import boolean_mask, broadcast_to, sequence_mask
from fn._ops.math_ops import equal, less, logical_not, maximum, minimum, reduce_all, reduce_max, reduce_prod
from fn._ragged._ragged_tensor import RaggedTensor, _static_len, rowids_from_splits
from fn._sparse.sparse_tensor import SparseTensor
from fn.dtypes import int64
from fn.errors import InvalidArgumentError


def _shape_list(shape: Any) -> Optional[List[Any]]:
    if shape is None:
        return None
    if _core.is_tensor(shape):
        return [int(d) if d >= 0 else None for d in shape.numpy().tolist()]
    if hasattr(shape, "as_list"):
        return shape.as_list() if shape.rank is not None else None
    return [None if d is None or (isinstance(d, int) and d < 0) else int(d) for d in shape]


def _dims_text(dims: List[Any], sep: str = ", ") -> str:
    return "[" + sep.join("?" if d is None else str(d) for d in dims) + "]"


def _dense_rows(values: Any, splits: Any, width: Any, default: Any, nrows: Any) -> Any:
    """``[nrows, width, ...]``: row i holds ``values[splits[i]:splits[i+1]]`` (truncated to
    ``width``), then ``default``."""
    dt = splits.dtype
    nvals = _shape(values, out_type=dt)[0]
    # One extra value (the default) at index nvals fills the padding.
    inner = _shape(values, out_type=int64)[1:]
    pad = broadcast_to(cast(default, values.dtype), concat([convert_to_tensor(np.array([1], np.int64)), inner], 0))
    ext = concat([values, pad], 0)
    n_splits = _static_len(splits)
    starts = splits[:-1]
    lengths = splits[1:] - starts
    cols = _range(cast(0, dt), cast(width, dt), dtype=dt)
    index = expand_dims(starts, 1) + expand_dims(cols, 0)
    valid = less(expand_dims(cols, 0), expand_dims(lengths, 1))
    index = where(valid, index, nvals + 0 * index)
    dense = gather(ext, index)
    if nrows is not None:
        n_have = n_splits - 1 if n_splits is not None else None
        if n_have is not None and isinstance(nrows, int):
            if nrows < n_have:
                dense = dense[:nrows]
            elif nrows > n_have:
                fill = broadcast_to(
                    expand_dims(pad, 0),
                    concat(
                        [convert_to_tensor(np.array([nrows - n_have], np.int64)), _shape(dense, out_type=int64)[1:]], 0
                    ),
                )
                dense = concat([dense, fill], 0)
    return dense


def to_tensor(rt: RaggedTensor, default_value: Any = None, shape: Any = None) -> Any:
    """``RaggedTensor.to_tensor(default_value, shape)``."""
    dims = _shape_list(shape)

    if dims is not None and len(dims) != rt.shape.rank:
        raise InvalidArgumentError(
            None,
            None,
            f"rt_input.shape and shape={_dims_text(dims)} are incompatible: "
            f"rt_input.rank = {rt.shape.rank} but shape.rank = {len(dims)} "
            "[Op:RaggedTensorToTensor]",
        )
    if default_value is None:
        default = zeros([], rt.dtype)
    else:
        default = default_value if _core.is_tensor(default_value) else convert_to_tensor(default_value, rt.dtype)
    flat = rt.flat_values.shape
    d, f = default.shape.as_list(), flat.as_list() if flat.rank is not None else None
    if f is not None and d:
        prefix = (
            f"default_value.shape={_dims_text(d)} and rt_input.flat_values.shape={_dims_text(f, ',')} are "
            "incompatible: "
        )
        if len(d) >= len(f):
            raise InvalidArgumentError(
                None,
                None,
                prefix + f"default_value.rank = {len(d)}  must be less than "
                f"rt_input.flat_values.rank = {len(f)} [Op:RaggedTensorToTensor]",
            )
        for i in range(1, len(d) + 1):
            if d[-i] != 1 and f[-i] is not None and d[-i] != f[-i]:
                raise InvalidArgumentError(
                    None,
                    None,
                    prefix + f"default_value.shape[{-i}] = {d[-i]} but "
                    f"rt_input.flat_values.shape[{-i}] = {f[-i]} [Op:RaggedTensorToTensor]",
                )
    return _to_tensor(rt, default, dims)


def _to_tensor(rt: Any, default: Any, dims: Optional[List[Any]]) -> Any:
    if not isinstance(rt, RaggedTensor):
        t = rt
        if dims is not None and any(d is not None for d in dims[1:]):
            for axis, d in enumerate(dims[1:], 1):
                if d is not None and t.shape[axis] is not None and t.shape[axis] != d:
                    t = _fit_axis(t, axis, d, default)
        return t
    inner = _to_tensor(rt.values, default, None if dims is None else [None] + dims[2:])
    dt = rt.row_splits.dtype
    width = dims[1] if dims is not None and dims[1] is not None else None
    if width is None:
        lengths = rt.row_splits[1:] - rt.row_splits[:-1]
        width = reduce_max(concat([lengths, convert_to_tensor(np.zeros([1], dt.as_numpy_dtype))], 0))
    nrows = dims[0] if dims is not None else None
    inner_default = default
    return _dense_rows(inner, rt.row_splits, width, inner_default, nrows)


def _fit_axis(t: Any, axis: int, size: int, default: Any) -> Any:
    """``t`` cut or padded with ``default`` to ``size`` along ``axis``."""
    have = t.shape[axis]
    if have >= size:
        return t[(slice(None),) * axis + (slice(0, size),)]
    pad_shape = t.shape.as_list()
    pad_shape[axis] = size - have
    return concat([t, broadcast_to(cast(default, t.dtype), _shape_of(t, axis, size - have))], axis)


def _shape_of(t: Any, axis: int, size: int) -> Any:
    s = _shape(t, out_type=int64)
    return concat([s[:axis], convert_to_tensor(np.array([size], np.int64)), s[axis + 1 :]], 0)


def from_tensor(tensor: Any, lengths: Any, padding: Any, ragged_rank: int, splits_dtype: Any) -> RaggedTensor:
    """``RaggedTensor.from_tensor``."""
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
    t = tensor if _core.is_tensor(tensor) else convert_to_tensor(tensor)
    if ragged_rank <= 0:
        raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received {ragged_rank}.")
    rank = t.shape.rank
    if rank is not None and rank <= 1:
        raise ValueError(
            "The rank of a RaggedTensor must be greater than 1, i.e., a list of scalars won't have "
            f"ragged dimensions. Received argument `tensor` with rank {rank}."
        )
    if rank is not None and rank <= ragged_rank:
        raise ValueError(
            f"Argument `ragged_rank` must be less than rank of input tensor (rank={rank}). "
            f"Received ragged_rank={ragged_rank}."
        )
    if ragged_rank > 1:
        # Merge the outer dims, make the innermost partition ragged, then re-split uniformly.
        s = _shape(t, out_type=splits_dtype)
        flat = reshape(t, concat([expand_dims(s[0] * s[1], 0), s[2:]], 0))
        inner_lengths = lengths
        if lengths is not None and not isinstance(lengths, (list, tuple)):
            inner_lengths = reshape(lengths, [-1])
        inner = from_tensor(flat, inner_lengths, padding, ragged_rank - 1, splits_dtype)
        return RaggedTensor.from_uniform_row_length(inner, s[1], nrows=s[0])
    s = _shape(t, out_type=splits_dtype)
    nrows, ncols = s[0], s[1]
    if padding is not None:
        pad = padding if _core.is_tensor(padding) else convert_to_tensor(padding, t.dtype)
        is_pad = equal(t, pad)
        if t.shape.rank is not None and t.shape.rank > 2:
            is_pad = reduce_all(is_pad, list(range(2, t.shape.rank)))
        # A row's length is one past its last non-padding value.
        keep = cast(logical_not(is_pad), splits_dtype)
        positions = _range(cast(1, splits_dtype), ncols + 1, dtype=splits_dtype)
        lengths_t = reduce_max(
            concat(
                [
                    keep * expand_dims(positions, 0),
                    cast(zeros(stack([nrows, cast(1, splits_dtype)]), splits_dtype), splits_dtype),
                ],
                1,
            ),
            1,
        )
    elif lengths is not None:
        lengths_t = lengths if _core.is_tensor(lengths) else convert_to_tensor(np.asarray(lengths, np.int64))
        lengths_t = minimum(maximum(cast(lengths_t, splits_dtype), cast(0, splits_dtype)), ncols)
    else:
        values = reshape(t, concat([expand_dims(nrows * ncols, 0), s[2:]], 0))
        return RaggedTensor.from_uniform_row_length(values, ncols, nrows=nrows, validate=False)
    mask = sequence_mask(lengths_t, ncols)
    values = boolean_mask(t, mask)
    return RaggedTensor.from_row_lengths(values, lengths_t, validate=False)


def merge_dims(rt: Any, outer_axis: int, inner_axis: int) -> Any:
    """``RaggedTensor.merge_dims``: dims ``outer_axis..inner_axis`` become one."""
    rank = rt.shape.rank
    if outer_axis < 0:
        outer_axis += rank
    if inner_axis < 0:
        inner_axis += rank
    if not 0 <= outer_axis <= inner_axis < rank:
        raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis ({inner_axis}).")
    if outer_axis == inner_axis:
        return rt
    if outer_axis == 0:
        if inner_axis <= rt.ragged_rank:
            v = rt.values
            for _ in range(inner_axis - 1):
                v = v.values
            return v
        flat = rt.flat_values
        s = _shape(flat, out_type=int64)
        k = inner_axis - rt.ragged_rank + 1
        return reshape(flat, concat([convert_to_tensor(np.array([-1], np.int64)), s[k:]], 0))
    if outer_axis == 1:
        inner = rt.values
        if isinstance(inner, RaggedTensor):
            # Rows of rt become runs of inner's values: compose the two partitions.
            merged = RaggedTensor.from_row_splits(inner.values, gather(inner.row_splits, rt.row_splits), validate=False)
            return merge_dims(merged, 1, inner_axis - 1)
        s = _shape(inner, out_type=rt.row_splits.dtype)
        k = inner_axis - rt.ragged_rank + 1  # inner dims 1..k-1 merge into the rows
        width = reduce_prod(s[1:k])
        values = reshape(
            inner, concat([convert_to_tensor(np.array([-1], rt.row_splits.dtype.as_numpy_dtype)), s[k:]], 0)
        )
        return RaggedTensor.from_row_splits(values, rt.row_splits * width, validate=False)
    return rt.with_values(merge_dims(rt.values, outer_axis - 1, inner_axis - 1))


def to_sparse(rt: RaggedTensor) -> Any:
    """``RaggedTensor.to_sparse``: a SparseTensor with one entry per value (``fn.SparseTensor``,
    from fn.sparse)."""
    flat = rt.flat_values
    n = _shape(flat, out_type=int64)[0]
    idx = _range(cast(0, int64), n, dtype=int64)
    coords: List[Any] = []
    for splits in reversed(rt.nested_row_splits):
        s64 = cast(splits, int64)
        row = gather(rowids_from_splits(s64), idx)
        coords.insert(0, idx - gather(s64, row))
        idx = row
    coords.insert(0, idx)
    outer = stack(coords, 1)
    inner_dims = flat.shape.as_list()[1:]
    values = reshape(flat, [-1])
    if inner_dims:
        if any(d is None for d in inner_dims):
            raise NotImplementedError("RaggedTensor.to_sparse with unknown inner dimensions in fn")
        count = int(np.prod(inner_dims))
        inner = convert_to_tensor(np.stack(np.unravel_index(np.arange(count), inner_dims), 1).astype(np.int64))
        k = len(coords)
        outer = reshape(
            broadcast_to(expand_dims(outer, 1), concat([expand_dims(n, 0), np.array([count, k])], 0)), [-1, k]
        )
        inner = reshape(
            broadcast_to(expand_dims(inner, 0), concat([expand_dims(n, 0), np.array([count, len(inner_dims)])], 0)),
            [-1, len(inner_dims)],
        )
        outer = concat([outer, inner], 1)
    return SparseTensor(outer, values, cast(rt.bounding_shape(), int64))


def from_sparse(st: Any, splits_dtype: Any) -> RaggedTensor:
    """``RaggedTensor.from_sparse``: rows from a 2-D ragged-right SparseTensor."""
    idx = st.indices
    if idx.shape.rank is not None and idx.shape[1] is not None and idx.shape[1] != 2:
        raise ValueError("rank(st_input) must be 2.")
    nrows = cast(st.dense_shape[0], splits_dtype)
    rows = cast(idx[:, 0], splits_dtype)
    rt = RaggedTensor.from_value_rowids(st.values, rows, nrows, validate=False)
    if idx._is_eager:
        # Ragged-right: each row's columns are 0, 1, 2, ... in order.
        from fn._ragged._ragged_tensor import rowids_from_splits

        expect = _range(cast(0, splits_dtype), rt.row_splits[-1], dtype=splits_dtype) - gather(
            rt.row_splits, rowids_from_splits(rt.row_splits)
        )
        if not np.array_equal(cast(idx[:, 1], splits_dtype).numpy(), expect.numpy()):
            raise InvalidArgumentError(
                None,
                None,
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                "Summarized data: b'SparseTensor is not right-ragged'",
            )
    return rt
