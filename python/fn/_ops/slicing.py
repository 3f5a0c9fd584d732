"""``Tensor.__getitem__``: Python indexing (ints, slices with steps, negative indices, ``...``,
``None``/``fn.newaxis``, scalar int tensors) as one StridedSlice op, the way TensorFlow does it."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from fn import _core
from fn._ops import array_ops
from fn.dtypes import bool_, int32, int64

_BAD_INDEX = (
    "Only integers, slices (`:`), ellipsis (`...`), fn.newaxis (`None`) and scalar "
    "fn.int32/fn.int64 tensors are valid indices, got {!r}"
)


def _check_index(idx: Any) -> None:
    if isinstance(idx, (numbers.Integral, np.integer)):
        return
    if _core.is_tensor(idx):
        if idx.dtype.name in ("int32", "int64") and (idx._rank in (0, -1)):
            return
        if idx.dtype.name in ("int32", "int64"):
            raise TypeError(_BAD_INDEX.format(idx) + f" (a tensor of shape {idx.shape})")
    raise TypeError(_BAD_INDEX.format(idx))


def _pack(values: list, dtype: Any) -> Any:
    """The begin/end/strides vector: a constant, or a Pack when some entries are tensors."""
    if not any(_core.is_tensor(v) for v in values):
        return array_ops.constant(np.asarray(values, dtype=dtype.as_numpy_dtype).reshape([len(values)]), dtype)
    return array_ops.stack([v if _core.is_tensor(v) else _core.convert_to_tensor(int(v), dtype) for v in values])


def _is_bool_mask(spec: Any) -> bool:
    if isinstance(spec, (bool, np.bool_)):
        return True
    if isinstance(spec, np.ndarray):
        return spec.dtype == np.bool_
    return _core.is_tensor(spec) and spec.dtype == bool_


def getitem(tensor: Any, slice_spec: Any) -> Any:
    """``tensor[slice_spec]`` (TF's ``_slice_helper``): a bool, a bool tensor or a bool ndarray
    alone is a ``boolean_mask``."""
    if _is_bool_mask(slice_spec):
        from fn._ops.manip_ops import boolean_mask  # manip_ops builds on the ops slicing uses

        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, tuple):
        slice_spec = (slice_spec,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    index_dtype = None
    for i, s in enumerate(slice_spec):
        bit = 1 << i
        if isinstance(s, slice):
            for part in (s.start, s.stop, s.step):
                if part is not None:
                    _check_index(part)
            if s.start is not None:
                begin.append(s.start)
            else:
                begin.append(0)
                begin_mask |= bit
            if s.stop is not None:
                end.append(s.stop)
            else:
                end.append(0)
                end_mask |= bit
            strides.append(1 if s.step is None else s.step)
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= bit
        v: Any
        for v in (begin[-1], end[-1], strides[-1]):
            if _core.is_tensor(v) and v.dtype.name == "int64":
                index_dtype = v.dtype
    dtype = index_dtype or int32
    values = begin + end + strides
    if (
        index_dtype is None
        and not any(_core.is_tensor(v) for v in values)
        and any(not -(2**31) <= int(v) < 2**31 for v in values)
    ):
        dtype = int64  # TF packs Python indices beyond int32 as int64 (x[1:2**40] is a valid slice)
    attrs = {
        "begin_mask": begin_mask,
        "end_mask": end_mask,
        "ellipsis_mask": ellipsis_mask,
        "new_axis_mask": new_axis_mask,
        "shrink_axis_mask": shrink_axis_mask,
    }
    if not begin:
        empty = array_ops.constant(np.zeros([0], np.int32))
        packed = [empty, empty, empty]
    else:
        packed = [_pack(begin, dtype), _pack(end, dtype), _pack(strides, dtype)]
    return _core.execute("StridedSlice", [tensor] + packed, attrs, "strided_slice")[0]
