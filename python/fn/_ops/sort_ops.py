"""Sorting and scans with TensorFlow's names: ``tf.sort``, ``tf.argsort``, ``tf.math.top_k``
(the TopKV2 op), ``tf.cumsum`` / ``tf.math.cumprod`` (Cumsum / Cumprod ops).

``sort``/``argsort`` are built on TopKV2 as TensorFlow's ``sort_ops`` are: ascending order sorts
the negated values (``-x - 1`` for integers, so the most negative integer survives)."""

from __future__ import annotations

import collections
from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import convert_to_tensor, transpose
from fn.dtypes import as_dtype, int32
from fn._ops.op_call import run_op_outputs as _run

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = int32, name: Optional[str] = None) -> TopKV2:
    """``tf.math.top_k``: the ``k`` largest entries of the last axis and their indices (ties:
    the lower index first)."""
    x = convert_to_tensor(input)
    k_t = k if _core.is_tensor(k) else convert_to_tensor(k, int32)
    values, indices = _run(
        "TopKV2", [x, k_t], {"sorted": bool(sorted), "index_type": as_dtype(index_type)}, name or "TopKV2"
    )
    return TopKV2(values, indices)


def _static_axis(axis: Any) -> int:
    if _core.is_tensor(axis):
        if not axis._is_eager:
            raise ValueError("axis must be a constant scalar")
        axis = axis.numpy()
    a = np.asarray(axis)
    if a.ndim != 0 or a.dtype.kind not in "iu":
        raise ValueError("axis must be a constant scalar")
    return int(a)


def _descending(values: Any, axis: int, return_argsort: bool) -> Any:
    rank = values._rank
    if rank < 0:
        raise ValueError("fn.sort needs a tensor of known rank")
    if axis < -rank or axis >= rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    axis %= rank
    perm = None
    if axis != rank - 1:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        values = transpose(values, perm)
    n = values._shape_tuple[-1]
    k = (
        convert_to_tensor(n, int32)
        if n is not None
        else _core.execute(
            "StridedSlice",
            [
                _core.execute("Shape", [values], {"out_type": int32}, None)[0],
                convert_to_tensor([-1], int32),
                convert_to_tensor([0], int32),
                convert_to_tensor([1], int32),
            ],
            {"begin_mask": 0, "end_mask": 1, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 1},
            None,
        )[0]
    )
    out = top_k(values, k)
    result = out.indices if return_argsort else out.values
    return transpose(result, perm) if perm is not None else result


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Any:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{direction} should be one of ASCENDING, DESCENDING")
    axis = _static_axis(axis)
    values = convert_to_tensor(values)
    if direction == "DESCENDING":
        return _descending(values, axis, return_argsort)
    dt = values.dtype
    if dt.is_integer and dt.name.startswith("uint"):
        offset = convert_to_tensor(np.iinfo(dt.as_numpy_dtype).max, dt)
        r = _descending(offset - values, axis, return_argsort)
        return r if return_argsort else offset - r
    if dt.is_integer:
        one = convert_to_tensor(1, dt)
        r = _descending(-values - one, axis, return_argsort)
        return r if return_argsort else -r - one
    r = _descending(-values, axis, return_argsort)
    return r if return_argsort else -r


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: Optional[str] = None) -> Any:
    """``tf.sort``: ``values`` sorted along ``axis`` (``"ASCENDING"`` or ``"DESCENDING"``)."""
    return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(
    values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False, name: Optional[str] = None
) -> Any:
    """``tf.argsort``: int32 indices that sort ``values`` along ``axis`` (always stable)."""
    return _sort_or_argsort(values, axis, direction, return_argsort=True)


def _scan(op: str, x: Any, axis: Any, exclusive: bool, reverse: bool, name: Optional[str]) -> Any:
    x = convert_to_tensor(x)
    axis_t = axis if _core.is_tensor(axis) else convert_to_tensor(axis, int32)
    return _run(op, [x, axis_t], {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name or op)[0]


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: Optional[str] = None) -> Any:
    """``tf.math.cumsum``: running sums along ``axis`` (``exclusive``: shifted by one,
    starting at 0; ``reverse``: from the end)."""
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: Optional[str] = None) -> Any:
    """``tf.math.cumprod``: running products along ``axis`` (``exclusive`` starts at 1)."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)
