"""``tf.sets``: set operations over the last dimension of dense or sparse tensors (TF's
SetSize / DenseToDenseSetOperation / DenseToSparseSetOperation / SparseToSparseSetOperation), as
compositions of fn ops so they trace like any op.

Each input becomes a list of (group, value) elements, the group being the row-major index of its
first n-1 coordinates. A value is replaced by its rank among the sorted distinct values of both
inputs, so that an element is one int64 key ``group * count + rank``: the set operations are then
operations on unique keys, and sorting the result keys gives TF's output order (groups in
row-major order, each set's values ascending)."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from fn import _core
from fn._ops import array_ops as A
from fn._ops import math_ops as M
from fn._ops.manip_ops import boolean_mask, unique
from fn._ops.sort_ops import argsort, cumprod, cumsum, sort
from fn._tf_compat._segment_ops import unsorted_segment_sum
from fn._sparse.sparse_tensor import SparseTensor
from fn.dtypes import int32, int64
from fn.errors import InvalidArgumentError
from fn._ops.script_ops import host_numpy_function as numpy_function

_VALID = ("int8", "int16", "int32", "int64", "uint8", "uint16", "string")
_VALID_TEXT = "{" + ", ".join(f"tf.{n}" for n in _VALID) + "}"


def _convert(x: Any, name: str) -> Any:
    return x if isinstance(x, SparseTensor) else A.convert_to_tensor(x, name=name)


def _check_dtype(x: Any, which: str) -> None:
    if x.dtype.name not in _VALID:
        prefix = f"'{which}' has invalid" if which else "Invalid"
        raise TypeError(f"{prefix} dtype `{x.dtype!r}` not in supported dtypes: `{_VALID_TEXT}`.")


def _convert_pair(a: Any, b: Any) -> Tuple[Any, Any, bool]:
    """TF's ``_convert_to_tensors_or_sparse_tensors``: checked dtypes, and (sparse, dense)
    flipped to (dense, sparse)."""
    a = _convert(a, "a")
    _check_dtype(a, "a")
    b = _convert(b, "b")
    if b.dtype != a.dtype:
        raise TypeError(f"Types don't match, {a.dtype!r} vs {b.dtype!r}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _shape_of(x: Any) -> Any:
    return x.dense_shape if isinstance(x, SparseTensor) else A.shape(x, out_type=int64)


def _check_rank(x: Any) -> None:
    rank = x.shape.rank
    if rank is not None and rank < 2:
        if isinstance(x, SparseTensor):
            raise InvalidArgumentError(None, None, f"Invalid rank {rank}.")
        dims = ",".join(str(d) for d in x.shape.as_list())
        raise InvalidArgumentError(None, None, f"Shape [{dims}] has rank {rank} < 2")


def _elements(x: Any, group_shape: Any) -> Tuple[Any, Any]:
    """(group index, value) of each element of a set input: a dense input's every element, a
    sparse input's values."""
    if isinstance(x, SparseTensor):
        idx = x.indices[:, :-1]
        strides = cumprod(group_shape, exclusive=True, reverse=True)
        return M.reduce_sum(idx * strides[None, :], axis=1), x.values
    values = A.reshape(x, [-1])
    width = A.shape(x, out_type=int64)[-1]
    return A.range(A.size(x, out_type=int64), dtype=int64) // M.maximum(width, 1), values


def _value_ranks(values: Any) -> Tuple[Any, Any]:
    """(sorted distinct values, rank of each value among them)."""
    uniq, ids = unique(values, out_idx=int64)
    if uniq.dtype.name == "string":
        order = _string_order(uniq)
    else:
        order = argsort(uniq, stable=True)
    ranks = A.gather(_invert(order), ids)
    return A.gather(uniq, order), ranks


def _invert(perm: Any) -> Any:
    perm = M.cast(perm, int64)
    return A.scatter_nd(
        perm[:, None], A.range(A.size(perm, out_type=int64), dtype=int64), A.shape(perm, out_type=int64)
    )


def _string_order(uniq: Any) -> Any:
    """argsort of distinct strings by their bytes (TF orders string sets so); no fn op compares
    strings, so the host sorts them."""

    return numpy_function(
        lambda u: np.argsort(np.asarray(u, dtype=object), kind="stable").astype(np.int64), [uniq], int64
    )


def _check_groups(ga: Any, gb: Any) -> None:
    if _core.executing_eagerly() and hasattr(ga, "numpy") and hasattr(gb, "numpy"):
        sa, sb = ga.numpy().tolist(), gb.numpy().tolist()
        if sa != sb:
            fa, fb = ",".join(map(str, sa)), ",".join(map(str, sb))
            raise InvalidArgumentError(None, None, f"Mismatched shapes [{fa}] vs [{fb}]")


def _output(keys: Any, sorted_values: Any, count: Any, group_shape: Any) -> SparseTensor:
    """The result SparseTensor of sorted unique keys: each group's values at positions 0.. of the
    last dimension, which is as long as the largest set."""
    keys = sort(keys)
    group, rank = keys // count, keys % count
    groups, seg = unique(group, out_idx=int64)
    n = A.size(keys, out_type=int64)
    # Groups come sorted: a group starts after the elements of the groups before it.
    sizes = unsorted_segment_sum(M.ones_like(seg), seg, A.size(groups, out_type=int64))
    col = A.range(n, dtype=int64) - A.gather(cumsum(sizes, exclusive=True), seg)
    strides = cumprod(group_shape, exclusive=True, reverse=True)
    lead = (group[:, None] // strides[None, :]) % M.maximum(group_shape, 1)[None, :]
    indices = A.concat([lead, col[:, None]], 1)
    width = M.reduce_max(A.concat([col + 1, A.zeros([1], int64)], 0))
    shape = A.concat([group_shape, width[None]], 0)
    return SparseTensor(indices, A.gather(sorted_values, rank), shape)


def _set_operation(a: Any, b: Any, op: str) -> SparseTensor:
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your inputs.")
    _check_rank(a)
    _check_rank(b)
    ga, gb = _shape_of(a)[:-1], _shape_of(b)[:-1]
    _check_groups(ga, gb)
    group_a, val_a = _elements(a, ga)
    group_b, val_b = _elements(b, ga)
    sorted_values, ranks = _value_ranks(A.concat([val_a, val_b], 0))
    count = M.maximum(A.size(sorted_values, out_type=int64), 1)
    na = A.size(val_a, out_type=int64)
    key_a = unique(group_a * count + ranks[:na], out_idx=int64)[0]
    key_b = unique(group_b * count + ranks[na:], out_idx=int64)[0]
    both = A.concat([key_a, key_b], 0)
    keys, idx = unique(both, out_idx=int64)
    if op == "union":
        return _output(keys, sorted_values, count, ga)
    # How many of the two (deduplicated) key lists hold each key.
    hits = unsorted_segment_sum(M.ones_like(idx), idx, A.size(keys, out_type=int64))
    if op == "intersection":
        chosen = boolean_mask(keys, M.equal(hits, 2))
    else:
        own = key_a if op == "a-b" else key_b
        own_hits = A.gather(
            hits,
            A.gather(
                idx,
                A.range(A.size(own, out_type=int64), dtype=int64)
                + (0 if op == "a-b" else A.size(key_a, out_type=int64)),
            ),
        )
        chosen = boolean_mask(own, M.equal(own_hits, 1))
    return _output(chosen, sorted_values, count, ga)


def set_size(a: Any, validate_indices: bool = True) -> Any:
    """``tf.sets.size``: the number of distinct values of each set (last dimension) of a
    SparseTensor, an int32 tensor of its first n-1 dimensions."""
    a = _convert(a, "a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    _check_dtype(a, "")
    _check_rank(a)
    group_shape = a.dense_shape[:-1]
    group, values = _elements(a, group_shape)
    _, ranks = _value_ranks(values)
    count = M.maximum(A.size(values, out_type=int64), 1)
    keys = unique(group * count + ranks, out_idx=int64)[0]
    groups = M.reduce_prod(group_shape)
    sizes = unsorted_segment_sum(M.ones_like(keys, dtype=int32), keys // count, groups)
    return A.reshape(sizes, group_shape)


def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """``tf.sets.intersection``: per set (last dimension), the values in both ``a`` and ``b``."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection")


def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """``tf.sets.union``: per set (last dimension), the values in ``a`` or ``b``."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union")


def set_difference(a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True) -> SparseTensor:
    """``tf.sets.difference``: per set, the values of ``a`` not in ``b`` (``aminusb``) or the
    values of ``b`` not in ``a``."""
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a")


size = set_size
intersection = set_intersection
union = set_union
difference = set_difference
