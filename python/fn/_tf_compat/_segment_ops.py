"""``tf.math.unsorted_segment_{sum,max,min,prod,mean,sqrt_n}`` and ``tf.math.segment_{max,min,
prod,mean}``: sums through the UnsortedSegmentSum kernel, the others as scatters into a tensor
filled with the reduction's identity (TF's values for empty segments: 0 for sums and means, the
dtype's lowest/highest value for max/min, 1 for products)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops as _array_ops
from fn._ops import functional_ops as _functional_ops
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn._ops import sort_ops as _sort_ops
from fn import dtypes as _dtypes


def _args(data: Any, segment_ids: Any, num_segments: Any) -> tuple:

    data = _array_ops.convert_to_tensor(data)
    segment_ids = _array_ops.convert_to_tensor(segment_ids)
    if not segment_ids.dtype.is_integer:
        raise TypeError(
            f"Value passed to parameter 'segment_ids' has DataType {segment_ids.dtype.name} "
            "not in list of allowed values: int32, int64"
        )
    num_segments = _array_ops.cast(_array_ops.convert_to_tensor(num_segments), segment_ids.dtype)
    return data, segment_ids, num_segments


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_sum``."""
    data, segment_ids, num_segments = _args(data, segment_ids, num_segments)
    return _core.execute("UnsortedSegmentSum", [data, segment_ids, num_segments], None, name or "UnsortedSegmentSum")[0]


def _scatter_reduce(kind: str, data: Any, segment_ids: Any, num_segments: Any) -> Any:

    data, segment_ids, num_segments = _args(data, segment_ids, num_segments)
    ids_rank = segment_ids.shape.rank
    out_shape = _array_ops.concat(
        [_array_ops.reshape(_array_ops.cast(num_segments, _dtypes.int32), [1]), _array_ops.shape(data)[ids_rank:]],
        axis=0,
    )
    np_dtype = data.dtype.as_numpy_dtype
    if kind == "max":
        init = np.finfo(np_dtype).min if data.dtype.is_floating else np.iinfo(np_dtype).min
    elif kind == "min":
        init = np.finfo(np_dtype).max if data.dtype.is_floating else np.iinfo(np_dtype).max
    else:
        init = 1
    base = _array_ops.fill(out_shape, _array_ops.constant(init, data.dtype))
    ids = _array_ops.expand_dims(segment_ids, -1)
    # Out-of-range (negative) ids are dropped, as TF's kernels drop them.
    keep = _array_ops.reshape(_math_ops.greater_equal(segment_ids, 0), [-1])
    flat_ids = _manip_ops.boolean_mask(_array_ops.reshape(ids, [-1, 1]), keep)
    flat_data = _manip_ops.boolean_mask(
        _array_ops.reshape(data, _array_ops.concat([[-1], _array_ops.shape(data)[ids_rank:]], 0)), keep
    )
    if kind == "max":
        return _manip_ops.tensor_scatter_nd_max(base, flat_ids, flat_data)
    if kind == "min":
        return _manip_ops.tensor_scatter_nd_min(base, flat_ids, flat_data)
    return _segment_prod(base, flat_ids[:, 0], flat_data)


def _segment_prod(base: Any, ids: Any, data: Any) -> Any:

    order = _sort_ops.argsort(ids, stable=True)
    ids = _array_ops.gather(ids, order)
    data = _array_ops.gather(data, order)
    # Each run of equal ids is multiplied by a scan that restarts at the run's first row (a
    # cumprod ratio would divide by zero).
    is_start = _array_ops.concat([[True], _math_ops.not_equal(ids[1:], ids[:-1])], 0)

    def step(acc: Any, x: Any) -> Any:
        value, start = x
        return _array_ops.where(start, value, acc * value)

    running = _functional_ops.scan(step, (data, is_start), initializer=_math_ops.zeros_like(data[0]))
    is_end = _array_ops.concat([_math_ops.not_equal(ids[1:], ids[:-1]), [True]], 0)
    last_ids = _manip_ops.boolean_mask(ids, is_end)
    last_vals = _manip_ops.boolean_mask(running, is_end)
    return _manip_ops.tensor_scatter_nd_update(base, _array_ops.expand_dims(last_ids, -1), last_vals)


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_max`` (empty segments hold the dtype's lowest value)."""
    return _scatter_reduce("max", data, segment_ids, num_segments)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_min`` (empty segments hold the dtype's highest value)."""
    return _scatter_reduce("min", data, segment_ids, num_segments)


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_prod`` (empty segments hold 1)."""
    return _scatter_reduce("prod", data, segment_ids, num_segments)


def _counts(data: Any, segment_ids: Any, num_segments: Any) -> Any:

    ones = _math_ops.ones_like(_array_ops.cast(segment_ids, data.dtype))
    counts = unsorted_segment_sum(ones, segment_ids, num_segments)
    extra = data.shape.rank - segment_ids.shape.rank
    return _array_ops.reshape(
        counts, _array_ops.concat([_array_ops.shape(counts), _array_ops.ones([extra], _dtypes.int32)], 0)
    )


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_mean`` (empty segments hold 0)."""

    data, segment_ids, num_segments = _args(data, segment_ids, num_segments)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return _math_ops.divide_no_nan(total, _counts(data, segment_ids, num_segments))


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Any:
    """``tf.math.unsorted_segment_sqrt_n``: the sum divided by sqrt(count)."""

    data, segment_ids, num_segments = _args(data, segment_ids, num_segments)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return _math_ops.divide_no_nan(total, _math_ops.sqrt(_counts(data, segment_ids, num_segments)))


def _num_segments(segment_ids: Any) -> Any:

    return _math_ops.maximum(_math_ops.reduce_max(segment_ids) + 1, 0) if segment_ids.shape[0] != 0 else 0


def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None) -> Any:
    """``tf.math.segment_max`` (sorted ids; empty segments hold 0, as TF's sorted kernels)."""

    ids = _array_ops.convert_to_tensor(segment_ids)
    n = _num_segments(ids)
    out = unsorted_segment_max(data, ids, n)
    return _zero_empty(out, data, ids, n)


def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None) -> Any:
    """``tf.math.segment_min`` (sorted ids; empty segments hold 0)."""

    ids = _array_ops.convert_to_tensor(segment_ids)
    n = _num_segments(ids)
    return _zero_empty(unsorted_segment_min(data, ids, n), data, ids, n)


def segment_prod(data: Any, segment_ids: Any, name: Optional[str] = None) -> Any:
    """``tf.math.segment_prod`` (sorted ids; empty segments hold 1)."""

    ids = _array_ops.convert_to_tensor(segment_ids)
    return unsorted_segment_prod(data, ids, _num_segments(ids))


def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None) -> Any:
    """``tf.math.segment_mean`` (sorted ids; empty segments hold 0)."""

    ids = _array_ops.convert_to_tensor(segment_ids)
    return unsorted_segment_mean(data, ids, _num_segments(ids))


def _zero_empty(out: Any, data: Any, ids: Any, n: Any) -> Any:

    data = _array_ops.convert_to_tensor(data)
    counts = _counts(data, ids, n)
    return _array_ops.where(_math_ops.greater(counts, 0), out, _math_ops.zeros_like(out))
