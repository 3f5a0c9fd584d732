"""``tf.sparse`` ops that combine or reshape index sets: maximum/minimum (union of indices),
reset_shape, split, fill_empty_rows, to_indicator. Compositions of fn ops, as in sparse_ops."""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops as A
from fn._ops import math_ops as M
from fn._ops.manip_ops import tensor_scatter_nd_update, unique
from fn._ops.sort_ops import argsort
from fn._sparse.sparse_ops import _check_sp, _eager, _linear, _np, _unlinear, slice as sparse_slice
from fn._sparse.sparse_tensor import SparseTensor
from fn.dtypes import bool_, int32, int64
from fn.errors import InvalidArgumentError
from fn._tensor.tensor_shape import known_rank


def _union(a: SparseTensor, b: SparseTensor, combine: Any) -> SparseTensor:
    """Values on the union of two index sets; an index missing from one side counts as 0
    (TF's SparseSparseMaximum/Minimum), in row-major order."""
    _check_sp(a)
    _check_sp(b)
    if a.dtype != b.dtype:
        raise TypeError(f"Input SparseTensors must have the same dtype: {a.dtype.name} vs {b.dtype.name}")
    lin_a, lin_b = _linear(a.indices, a.dense_shape), _linear(b.indices, a.dense_shape)
    u = unique(A.concat([lin_a, lin_b], 0), out_idx=int64)
    n = A.shape(u.y, out_type=int64)[:1]
    na = A.shape(lin_a, out_type=int64)[0]
    va = A.scatter_nd(u.idx[:na][:, None], a.values, n)
    vb = A.scatter_nd(u.idx[na:][:, None], b.values, n)
    order = argsort(u.y, stable=True)
    lin = A.gather(u.y, order)
    out = SparseTensor(_unlinear(lin, a.dense_shape), A.gather(combine(va, vb), order), a.dense_shape)
    out._shape = a.shape
    return out


def maximum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.maximum``: elementwise max of two SparseTensors of one shape."""
    return _union(sp_a, sp_b, M.maximum)


def minimum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.minimum``: elementwise min of two SparseTensors of one shape."""
    return _union(sp_a, sp_b, M.minimum)


def reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """``tf.sparse.reset_shape``: the same values with ``new_shape`` (at least the current one), or
    the tight bounding shape (largest index + 1 per dimension)."""
    sp = _check_sp(sp_input)
    if new_shape is None:
        tight = M.reduce_max(sp.indices, axis=0) + 1
        shape = A.where(M.greater(A.shape(sp.indices)[0], 0), tight, M.zeros_like(sp.dense_shape))
        return SparseTensor(sp.indices, sp.values, shape)
    new = A.convert_to_tensor(new_shape, int64)
    if _eager(new, sp.dense_shape):
        cur, req = _np(sp.dense_shape), _np(new)
        if cur.shape != req.shape or np.any(req < cur):
            raise ValueError(
                "Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape "
                f"({cur}), sp_input.shape ({req})."
            )
    return SparseTensor(sp.indices, sp.values, new)


def split(
    sp_input: Any = None,
    num_split: Any = None,
    axis: Any = None,
    name: Optional[str] = None,
    keyword_required: Any = None,
) -> List[SparseTensor]:
    """``tf.sparse.split``: ``num_split`` pieces along ``axis``; the first ``size % num_split``
    pieces are one longer."""
    sp = _check_sp(sp_input)
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    k = int(num_split)
    if k < 1:  # the op's attr minimum: ValueError while tracing, InvalidArgument eagerly
        if not _core.executing_eagerly():
            raise ValueError(f"Attr 'num_split' of 'SparseSplit' Op passed {k} less than minimum 1.")
        raise InvalidArgumentError(None, None, f"Value for attr 'num_split' of {k} must be at least minimum 1")
    if 3 * k > 2**31 - 1:  # SparseSplit has 3 * num_split outputs (TF checks the count first)
        raise ValueError(f"Number of outputs is too big: {3 * k}")
    rank = sp.shape.rank
    if rank is not None and not -rank <= int(axis) < rank:  # the SparseSplit kernel's check
        raise InvalidArgumentError(None, None, f"Input axis should be in range [{-rank}, {rank}), got {int(axis)}")
    rank = known_rank(sp.shape, "the sparse tensor")
    ax = int(axis) + rank if int(axis) < 0 else int(axis)
    dims = sp.shape.as_list()
    size = dims[ax]
    if size is None:
        raise NotImplementedError("fn.sparse.split needs a static size along `axis`")
    if k > size:  # checked before the loop: a huge num_split must not build pieces first
        raise InvalidArgumentError(
            None, None, f"Input num_split should be between 1 and the splitting dimension size ({size}), got {k}"
        )
    out, start = [], 0
    for i in range(k):
        n = size // k + (1 if i < size % k else 0)
        begin = [0] * rank
        begin[ax] = start
        extent = [d if d is not None else 2**62 for d in dims]
        extent[ax] = n
        out.append(sparse_slice(sp, begin, extent))
        start += n
    return out


def fill_empty_rows(sp_input: Any, default_value: Any, name: Optional[str] = None) -> tuple:
    """``tf.sparse.fill_empty_rows``: each empty row gets ``default_value`` at column 0; returns the
    new SparseTensor and a bool vector marking the rows that were empty."""
    sp = _check_sp(sp_input)
    rows = sp.indices[:, 0]
    n_rows = sp.dense_shape[:1]
    counts = A.scatter_nd(rows[:, None], M.ones_like(rows, int32), n_rows)
    empty = M.equal(counts, 0)
    new_rows = A.where(empty)
    rank = A.shape(sp.indices)[1:]
    pad = A.zeros(A.concat([A.shape(new_rows)[:1], rank - 1], 0), int64)
    indices = A.concat([sp.indices, A.concat([new_rows, pad], 1)], 0)
    fill = A.fill(A.shape(new_rows)[:1], A.convert_to_tensor(default_value, sp.dtype))
    values = A.concat([sp.values, fill], 0)
    order = argsort(indices[:, 0], stable=True)
    out = SparseTensor(A.gather(indices, order), A.gather(values, order), sp.dense_shape)
    out._shape = sp.shape
    return out, empty


def to_indicator(sp_input: Any, vocab_size: Any, name: Optional[str] = None) -> Any:
    """``tf.sparse.to_indicator``: a dense bool tensor, True at ``[..., value]`` for each value of
    the last dimension's entries."""
    sp = _check_sp(sp_input)
    ids = A.cast(sp.values, int64)
    idx = A.concat([sp.indices[:, :-1], ids[:, None]], 1)
    shape = A.concat([sp.dense_shape[:-1], A.convert_to_tensor([vocab_size], int64)], 0)
    return tensor_scatter_nd_update(A.fill(shape, False), idx, M.ones_like(ids, bool_))
