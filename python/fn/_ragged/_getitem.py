"""``RaggedTensor.__getitem__``: ints and slices (with Ellipsis), TF's supported forms: a row
(``rt[i]``), a range of rows (``rt[a:b]``), a slice of every row (``rt[:, a:b]``) and indexing
of uniform inner dimensions (``rt[:, :, 0]``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from fn import _core
from fn._array_ops import cast, convert_to_tensor, gather, where
from fn._math_ops import maximum, minimum, less
from fn._ragged._ragged_tensor import RaggedTensor


def _scalar(x: Any, dt: Any) -> Any:
    if _core.is_tensor(x):
        return cast(x, dt)
    return convert_to_tensor(np.array(x, dt.as_numpy_dtype))


def _expand_ellipsis(key: tuple, rank: int) -> tuple:
    if any(k is Ellipsis for k in key):
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        n = rank - (len(key) - 1)
        return key[:i] + (slice(None),) * max(n, 0) + key[i + 1:]
    return key


def ragged_getitem(rt: RaggedTensor, key: Any) -> Any:
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is None for k in key):
        raise ValueError("Cannot use tf.newaxis with RaggedTensor.__getitem__ in fn yet")
    for k in key:
        if not (k is Ellipsis or isinstance(k, (int, np.integer, slice)) or _core.is_tensor(k)):
            raise TypeError(f"Argument `key` must be an int, slice or Ellipsis; got {k!r}")
    key = _expand_ellipsis(key, rt.shape.rank)
    return _getitem(rt, key)


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
        splits = values.row_splits[start:limit + 1]
        inner_start = gather(values.row_splits, start)
        inner_limit = gather(values.row_splits, limit)
        return RaggedTensor.from_row_splits(_slice_values(values.values, inner_start, inner_limit),
                                            splits - inner_start, validate=False)
    return values[start:limit]


def _slice_rows(rt: RaggedTensor, s: slice) -> RaggedTensor:
    """``rt[a:b:c]`` along the rows."""
    if s.start is None and s.stop is None and s.step is None:
        return rt
    if s.step is not None and not (isinstance(s.step, int) and s.step == 1):
        from fn._ragged._array_ops import ragged_gather
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
        splits = rt.row_splits[a:max(a, b) + 1]
    else:
        a = s.start
        b = None if s.stop is None else s.stop + 1
        splits = rt.row_splits[a:b]
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
    if k1.step is not None and k1.step != 1:
        raise ValueError("Slice steps other than 1 are not supported for ragged dimensions in fn yet")
    dt = rt.row_splits.dtype
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    lengths = limits - starts

    def bound(v: Any, default: Any) -> Any:
        if v is None:
            return default
        t = _scalar(v, dt)
        t = where(less(t, _scalar(0, dt)), lengths + t, t + 0 * lengths)
        return minimum(maximum(t, 0 * lengths), lengths)
    lo = bound(k1.start, 0 * lengths)
    hi = bound(k1.stop, lengths)
    hi = maximum(hi, lo)
    from fn._ragged._factory import range as ragged_range
    idx = ragged_range(starts + lo, starts + hi, row_splits_dtype=dt)
    from fn._ragged._array_ops import gather_rows
    new_values = gather_rows(rt.values, idx.values)
    out = RaggedTensor.from_row_splits(new_values, idx.row_splits, validate=False)
    if rest[1:]:
        return out.with_values(_inner_values(out.values, rest[1:]))
    return out


def _inner_values(values: Any, rest: tuple) -> Any:
    if isinstance(values, RaggedTensor):
        return _inner(values, rest)
    return values[(slice(None),) + tuple(rest)]
