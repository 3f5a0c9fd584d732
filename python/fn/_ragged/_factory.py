"""``tf.ragged.constant``, ``tf.ragged.range``, ``tf.ragged.map_flat_values``."""

from __future__ import annotations

import sys

from typing import Any, Callable, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, constant as _constant, convert_to_tensor, range as _range, expand_dims
from fn._ops.manip_ops import broadcast_to
from fn._ops.math_ops import maximum
from fn._ragged._ragged_tensor import RaggedTensor, is_ragged
from fn._ops.sort_ops import cumsum
from fn.dtypes import as_dtype, int64
from fn._ops.array_ops import shape as _shape
from fn._ops.array_ops import concat
from fn._ragged._ragged_tensor import rowids_from_splits
from fn._ops.array_ops import gather
from fn._ops.math_ops import sign
from fn.errors import InvalidArgumentError
from fn._ops.math_ops import ceil

_brange = range  # this module defines tf.ragged.range


def constant(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: Optional[int] = None,
    inner_shape: Any = None,
    name: Optional[str] = None,
    row_splits_dtype: Any = int64,
) -> Any:
    """``tf.ragged.constant``: a RaggedTensor from a nested Python list (TF's rules for the
    default ragged_rank and inner_shape)."""
    splits_dtype = as_dtype(row_splits_dtype)

    def ragged_factory(values: Any, row_splits: list) -> Any:
        splits = convert_to_tensor(np.asarray(row_splits, splits_dtype.as_numpy_dtype))
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def inner_factory(pylist: Any, dtype: Any, shape: Any, name: Optional[str] = None) -> Any:
        if dtype is None:
            _check_not_mixed(pylist)
        return _constant(pylist, dtype=dtype, shape=shape)

    return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


def _constant_value(
    ragged_factory: Callable,
    inner_factory: Callable,
    pylist: Any,
    dtype: Any,
    ragged_rank: Optional[int],
    inner_shape: Any,
) -> Any:
    """Mirrors TF's ``ragged_factory_ops._constant_value``."""
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError("Invalid pylist=%r: incompatible with ragged_rank=%d" % (pylist, ragged_rank))
        if inner_shape is not None and inner_shape:
            raise ValueError("Invalid pylist=%r: incompatible with dim(inner_shape)=%d" % (pylist, len(inner_shape)))
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError("Invalid ragged_rank=%r: must be nonnegative" % ragged_rank)
    if ragged_rank is not None and ragged_rank > sys.getrecursionlimit():
        # one nested RaggedTensor per ragged dimension: TF loops ragged_rank times building them
        # (minutes, then MemoryError for 2**40); nothing deeper than Python's recursion can be used
        raise ValueError(
            f"Invalid ragged_rank={ragged_rank}: more nested ragged dimensions than fn can "
            f"represent (Python's recursion limit, {sys.getrecursionlimit()})"
        )
    scalar_depth, max_depth = _find_scalar_and_max_depth(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError("Invalid pylist=%r: empty list nesting is greater than scalar value nesting" % pylist)
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        expected_depth = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected_depth != scalar_depth) or (
            scalar_depth is None and expected_depth < max_depth
        ):
            raise ValueError(
                "Invalid pylist=%r: incompatible with ragged_rank=%d and dim(inner_shape)=%d"
                % (pylist, ragged_rank, len(inner_shape))
            )
    if ragged_rank == 0 or (
        ragged_rank is None and ((max_depth < 2) or (inner_shape is not None and max_depth - len(inner_shape) < 2))
    ):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape_for_pylist(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        if scalar_depth is None:
            ragged_rank = max(1, max_depth - 1)
        else:
            ragged_rank = max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits = []
    values = pylist
    for dim in _brange(ragged_rank):
        nested_splits.append([0])
        concatenated_values = []
        for row in values:
            nested_splits[dim].append(nested_splits[dim][-1] + len(row))
            concatenated_values.extend(row)
        values = concatenated_values
    values = inner_factory(values, dtype=dtype, shape=(len(values),) + inner_shape, name="values")
    for row_splits in reversed(nested_splits):
        values = ragged_factory(values, row_splits)
    return values


def _check_not_mixed(pylist: Any) -> None:
    """TF refuses to guess one dtype for strings mixed with numbers."""
    kinds = set()

    def visit(x: Any) -> None:
        if isinstance(x, (list, tuple)):
            for v in x:
                visit(v)
        else:
            kinds.add(isinstance(x, (str, bytes)))

    visit(pylist)
    if len(kinds) > 1:
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")


def _find_scalar_and_max_depth(pylist: Any) -> tuple:
    if isinstance(pylist, (list, tuple)) or np.ndim(pylist) != 0:
        scalar_depth = None
        max_depth = 1
        for child in pylist:
            child_scalar_depth, child_max_depth = _find_scalar_and_max_depth(child)
            if child_scalar_depth is not None:
                if scalar_depth is not None and scalar_depth != child_scalar_depth + 1:
                    raise ValueError("all scalar values must have the same nesting depth")
                scalar_depth = child_scalar_depth + 1
            max_depth = max(max_depth, child_max_depth + 1)
        return (scalar_depth, max_depth)
    return (0, 0)


def _default_inner_shape_for_pylist(pylist: Any, ragged_rank: int) -> tuple:
    def get_inner_shape(item: Any) -> tuple:
        if not isinstance(item, (list, tuple)) and np.ndim(item) == 0:
            return ()
        elif len(item) > 0:
            return (len(item),) + get_inner_shape(item[0])
        return (0,)

    def check_inner_shape(item: Any, shape: tuple) -> None:
        is_nested = isinstance(item, (list, tuple)) or np.ndim(item) != 0
        if is_nested != bool(shape):
            raise ValueError("inner values have inconsistent shape")
        if is_nested:
            if shape[0] != len(item):
                raise ValueError("inner values have inconsistent shape")
            for child in item:
                check_inner_shape(child, shape[1:])

    flat_values = pylist
    for dim in _brange(ragged_rank):
        if not all(isinstance(v, (list, tuple)) or np.ndim(v) != 0 for v in flat_values):
            raise ValueError(
                "pylist has scalar values depth %d, but ragged_rank=%d requires scalar value depth "
                "greater than %d" % (dim + 1, ragged_rank, ragged_rank)
            )
        flat_values = sum((list(v) for v in flat_values), [])
    inner_shape = get_inner_shape(flat_values)
    check_inner_shape(flat_values, inner_shape)
    return inner_shape[1:]


def range(
    starts: Any,
    limits: Any = None,
    deltas: Any = 1,
    dtype: Any = None,
    name: Optional[str] = None,
    row_splits_dtype: Any = int64,
) -> RaggedTensor:
    """``tf.ragged.range``: row ``i`` is ``range(starts[i], limits[i], deltas[i])``."""
    splits_dtype = as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    args = [x if _core.is_tensor(x) else convert_to_tensor(x, dtype) for x in (starts, limits, deltas)]
    dts = [a.dtype for a in args]
    order = ["int32", "int64", "float32", "float64"]
    dt = (
        as_dtype(dtype)
        if dtype is not None
        else as_dtype(max(dts, key=lambda d: order.index(d.name) if d.name in order else 0))
    )
    starts, limits, deltas = [cast(a, dt) for a in args]
    for label, a in (("starts", starts), ("limits", limits), ("deltas", deltas)):
        if a.shape.rank is not None and a.shape.rank > 1:
            raise InvalidArgumentError(None, None, f"{label} must be a scalar or vector [Op:RaggedRange]")
    # TF's RaggedRange: the vectors' length is the row count (scalars broadcast; all scalars: 1
    # row), so a scalar start with an empty vector of limits gives no rows

    vectors = [a for a in (starts, limits, deltas) if a.shape.rank != 0]
    n = _shape(vectors[0], out_type=int64)[0] if vectors else convert_to_tensor(np.int64(1))
    starts, limits, deltas = [expand_dims(a, 0) if a.shape.rank == 0 else a for a in (starts, limits, deltas)]
    starts, limits, deltas = [broadcast_to(a, expand_dims(n, 0)) for a in (starts, limits, deltas)]
    if deltas._is_eager and bool(np.any(deltas.numpy() == 0)):
        raise InvalidArgumentError(None, None, "Requires delta != 0 [Op:RaggedRange]")
    # size_i = max(0, ceil((limit - start) / delta))
    if dt.is_integer:
        span = limits - starts
        size = (span + deltas - cast(1, dt) * _sign(deltas)) // deltas
    else:
        size = ceil((limits - starts) / deltas)
    size = cast(maximum(size, cast(0, dt)), splits_dtype)

    splits = concat([convert_to_tensor(np.zeros([1], splits_dtype.as_numpy_dtype)), cumsum(size)], 0)

    rowids = rowids_from_splits(splits)

    pos = _range(cast(0, splits_dtype), splits[-1], dtype=splits_dtype) - gather(splits, rowids)
    values = gather(starts, rowids) + cast(pos, dt) * gather(deltas, rowids)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _sign(x: Any) -> Any:

    return sign(x)


def map_flat_values(op: Callable, *args: Any, **kwargs: Any) -> Any:
    """``tf.ragged.map_flat_values``: ``op`` applied to the flat_values of the RaggedTensor
    arguments (which must share their nested row splits)."""
    partitions = []

    def replace(x: Any) -> Any:
        if isinstance(x, RaggedTensor):
            partitions.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(replace(v) for v in x)
        if isinstance(x, dict):
            return {k: replace(v) for k, v in x.items()}
        return x

    new_args = replace(list(args))
    new_kwargs = replace(kwargs)
    if not partitions:
        return op(*new_args, **new_kwargs)
    for other in partitions[1:]:
        _check_same_splits(partitions[0], other)
    result = op(*new_args, **new_kwargs)
    if isinstance(result, RaggedTensor):
        raise ValueError("map_flat_values requires that the output of `op` be a Tensor")
    return partitions[0].with_flat_values(result)


def _check_same_splits(x: RaggedTensor, y: RaggedTensor) -> None:
    """map_flat_values' check (TF's RowPartition merge): identical nested row splits."""

    if x.ragged_rank != y.ragged_rank:
        raise ValueError("All ragged inputs must have the same ragged_rank.")
    for a, b in zip(x.nested_row_splits, y.nested_row_splits):
        if a is b or not (a._is_eager and b._is_eager):
            continue
        if a.shape != b.shape or not np.array_equal(a.numpy(), b.numpy()):
            raise InvalidArgumentError(
                None, None, "RowPartition._merge_precomputed_encodings: partitions have incompatible row_splits"
            )
