"""``RaggedTensor.__getitem__``: ints and slices (with Ellipsis), TF's supported forms: a row
(``rt[i]``), a range of rows (``rt[a:b]``), a slice of every row (``rt[:, a:b]``) and indexing
of uniform inner dimensions (``rt[:, :, 0]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, convert_to_tensor, gather, where
from fn._ops.math_ops import maximum, minimum, less
from fn._ragged._ragged_tensor import RaggedTensor
from fn._tensor.tensor_shape import known_rank
from fn._ragged._factory import range as ragged_range
from fn._ragged._array_ops import gather_rows
from fn._ragged._array_ops import ragged_gather
from fn._ragged._shape_ops import expand_dims
from fn._ops.array_ops import expand_dims as dense_expand_dims


def _scalar(x: Any, dt: Any) -> Any:
    if _core.is_tensor(x):
        return cast(x, dt)
    return convert_to_tensor(np.array(x, dt.as_numpy_dtype))


def _check_key(k: Any) -> None:
    ok = (
        k is Ellipsis
        or k is None
        or isinstance(k, slice)
        or (isinstance(k, (int, np.integer)) and not isinstance(k, bool))
    )
    if not ok and _core.is_tensor(k):
        ok = k.shape.rank == 0 and k.dtype.name in ("int32", "int64")
    if isinstance(k, slice):
        for part in (k.start, k.stop, k.step):
            if part is not None:
                _check_key(part)
    elif not ok:
        raise TypeError(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
            f"tf.int32/tf.int64 tensors are valid indices, got {k!r}"
        )


def ragged_getitem(rt: RaggedTensor, key: Any) -> Any:
    if isinstance(key, list):  # TF reads a list key as a tuple of indices
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        _check_key(k)
    # Ellipsis stands for the dimensions the other (non-newaxis) keys leave.
    if any(k is Ellipsis for k in key):
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        n = known_rank(rt.shape) - (len([k for k in key if k is not None]) - 1)
        key = key[:i] + (slice(None),) * max(n, 0) + key[i + 1 :]
    # tf.newaxis: index without them, then insert each size-1 dimension where it goes.
    new_axes, out_axis = [], 0
    for k in key:
        if k is None:
            new_axes.append(out_axis)
            out_axis += 1
        elif isinstance(k, slice):
            out_axis += 1
    result = _getitem(rt, tuple(k for k in key if k is not None))
    for axis in new_axes:
        if isinstance(result, RaggedTensor):
            result = expand_dims(result, axis)
        else:
            result = dense_expand_dims(result, axis)
    return result


def _getitem(rt: Any, key: tuple) -> Any:
    if not key:
        return rt
    if not isinstance(rt, RaggedTensor):
        return rt[key]
    k0, rest = key[0], key[1:]
    if isinstance(k0, slice):
        rows = _slice_rows(rt, k0)
        return _inner(rows, rest)
    return _getitem(_row(rt, k0), rest)


def _row(rt: RaggedTensor, i: Any) -> Any:
    """``rt[i]``: one row (negative ``i`` counts from the end)."""
    dt = rt.row_splits.dtype
    n = rt.nrows()
    idx = _scalar(i, dt)
    if idx._is_eager and n._is_eager:
        iv, nv = int(idx.numpy()), int(n.numpy())
        if not -nv <= iv < nv:
            raise IndexError(f"Row key {iv} out of bounds")
    idx = where(less(idx, _scalar(0, dt)), idx + n, idx)
    start = gather(rt.row_splits, idx)
    limit = gather(rt.row_splits, idx + 1)
    return _slice_values(rt.values, start, limit)


def _slice_values(values: Any, start: Any, limit: Any) -> Any:
    if isinstance(values, RaggedTensor):
        splits = values.row_splits[start : limit + 1]
        inner_start = gather(values.row_splits, start)
        inner_limit = gather(values.row_splits, limit)
        return RaggedTensor.from_row_splits(
            _slice_values(values.values, inner_start, inner_limit), splits - inner_start, validate=False
        )
    return values[start:limit]


def _slice_rows(rt: RaggedTensor, s: slice) -> RaggedTensor:
    """``rt[a:b:c]`` along the rows."""
    if s.start is None and s.stop is None and s.step is None:
        return rt
    if s.step is not None and not (isinstance(s.step, int) and s.step == 1):
        dt = rt.row_splits.dtype
        n = rt.nrows()
        start, stop, step = s.start, s.stop, s.step
        if n._is_eager and not any(_core.is_tensor(v) for v in (start, stop, step)):
            idx = list(range(int(n.numpy())))[s]
            return ragged_gather(rt, convert_to_tensor(np.asarray(idx, dt.as_numpy_dtype)))
        raise NotImplementedError("strided row slices of a RaggedTensor inside a Function")
    n_static = rt.shape[0]
    if n_static is not None and not any(_core.is_tensor(v) for v in (s.start, s.stop)):
        a, b, _ = s.indices(n_static)
        splits = rt.row_splits[a : max(a, b) + 1]
    else:
        splits = rt.row_splits[s.start : None if s.stop is None else s.stop + 1]
    first = splits[0]
    last = splits[-1]
    values = _slice_values(rt.values, first, last)
    return RaggedTensor.from_row_splits(values, splits - first, validate=False)


def _inner(rt: RaggedTensor, rest: tuple) -> Any:
    """Applies ``rest`` to dimensions 1.. of ``rt`` (its rows are already selected)."""
    if not rest:
        return rt
    k1 = rest[0]
    if isinstance(k1, slice) and k1.start is None and k1.stop is None and k1.step is None:
        if isinstance(rt.values, RaggedTensor):
            return rt.with_values(_inner(rt.values, rest[1:]))
        return rt.with_values(rt.values[(slice(None),) + tuple(rest[1:])]) if rest[1:] else rt
    if not isinstance(k1, slice):
        raise ValueError("Cannot index into an inner ragged dimension.")
    dt = rt.row_splits.dtype
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    lengths = limits - starts
    zero = 0 * lengths
    step = 1 if k1.step is None else k1.step
    if _core.is_tensor(step):
        raise NotImplementedError("tensor slice steps in a ragged dimension in fn")
    if step == 0:
        raise ValueError("slice step cannot be zero")

    def bound(v: Any, default: Any, low: Any, high: Any) -> Any:
        # Python's slice.indices per row: negative counts from the row's end, then clamp.
        if v is None:
            return default
        t = _scalar(v, dt) + zero
        t = where(less(t, zero), lengths + t, t)
        return minimum(maximum(t, low), high)

    if step > 0:
        lo = bound(k1.start, zero, zero, lengths)
        hi = bound(k1.stop, lengths, zero, lengths)
    else:
        lo = bound(k1.start, lengths - 1, zero - 1, lengths - 1)
        hi = bound(k1.stop, zero - 1, zero - 1, lengths - 1)

    idx = ragged_range(starts + lo, starts + hi, _scalar(step, dt), row_splits_dtype=dt)

    new_values = gather_rows(rt.values, idx.values)
    out = RaggedTensor.from_row_splits(new_values, idx.row_splits, validate=False)
    if rest[1:]:
        return out.with_values(_inner_values(out.values, rest[1:]))
    return out


def _inner_values(values: Any, rest: tuple) -> Any:
    if isinstance(values, RaggedTensor):
        return _inner(values, rest)
    return values[(slice(None),) + tuple(rest)]
