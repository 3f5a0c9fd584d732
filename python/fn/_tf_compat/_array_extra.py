"""Array names TF has and fn lacked (issue 22: the ones Keras' TensorFlow backend calls):
``tf.bitcast``, ``tf.ensure_shape``, ``tf.broadcast_static_shape``/``broadcast_dynamic_shape``,
``tf.reverse_sequence``, ``tf.searchsorted``, ``tf.unique_with_counts``."""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops as _array_ops
from fn import errors as _errors
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn._tensor import tensor_shape as _tensor_shape
from fn._tf_compat import _segment_ops
from fn import dtypes as _dtypes


def _host_op(func: Any, inputs: List[Any], dtype: Any, shape: Any, name: str) -> Any:
    """A PyCall node computing ``func`` on NumPy values (for ops with no fn kernel); eagerly
    the function runs at once."""

    if all(_core.is_tensor(x) and x._is_eager for x in inputs):
        return _array_ops.convert_to_tensor(func(*[x.numpy() for x in inputs]), dtype)

    def call(*args: Any) -> List[Any]:
        return [_array_ops.convert_to_tensor(func(*[a.numpy() for a in args]), dtype)]

    return _core.execute("PyCall", inputs, {"callable": call, "Tout": [dtype], "Tout_shapes": [shape]}, name)[0]


def bitcast(input: Any, type: Any, name: Optional[str] = None) -> Any:
    """``tf.bitcast``: the same bytes read as another dtype. A wider type consumes the last
    dimension (which must equal the size ratio); a narrower one adds a last dimension."""

    x = _array_ops.convert_to_tensor(input)
    to = _dtypes.as_dtype(type)
    src, dst = np.dtype(x.dtype.as_numpy_dtype).itemsize, np.dtype(to.as_numpy_dtype).itemsize
    shape = x.shape
    if src == dst:
        out_shape = shape
    elif src > dst:
        out_shape = shape.concatenate([src // dst])
    else:
        if shape.rank is not None and (shape.rank == 0 or shape[-1] not in (None, dst // src)):
            raise _errors.InvalidArgumentError(
                None,
                None,
                f"Cannot bitcast from {x.dtype.as_datatype_enum if hasattr(x.dtype, 'as_datatype_enum') else x.dtype.name} "
                f"to {to.name}: shape {shape}",
            )
        out_shape = shape[:-1]

    def cast_bytes(a: np.ndarray) -> np.ndarray:
        a = np.ascontiguousarray(a)
        out = a.view(to.as_numpy_dtype)
        if src > dst:
            return out.reshape(a.shape + (src // dst,))
        if src < dst:
            return out.reshape(a.shape[:-1])
        return out

    return _host_op(cast_bytes, [x], to, out_shape, name or "Bitcast")


def ensure_shape(x: Any, shape: Any, name: Optional[str] = None) -> Any:
    """``tf.ensure_shape``: ``x`` with its static shape refined to ``shape``; a known mismatch is a
    ValueError, one found when running an InvalidArgumentError (TF's)."""

    x = _array_ops.convert_to_tensor(x)
    shape = _tensor_shape.TensorShape(shape)
    if not x.shape.is_compatible_with(shape):
        raise ValueError(f"Shape {x.shape} is not compatible with expected shape {shape}.")
    if x._is_eager or shape.rank is None:
        return x
    target = x.shape.merge_with(shape)
    if target == x.shape:
        return x
    expected = shape

    def check(a: np.ndarray) -> np.ndarray:
        if not expected.is_compatible_with(_tensor_shape.TensorShape(a.shape)):
            raise _errors.InvalidArgumentError(
                None,
                None,
                f"Shape of tensor {name or 'EnsureShape'} {list(a.shape)} is not compatible "
                f"with expected shape {expected}.",
            )
        return a

    return _host_op(check, [x], x.dtype, target, name or "EnsureShape")


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> Any:
    """``tf.broadcast_static_shape``: the broadcast of two TensorShapes (ValueError if none)."""

    a, b = _tensor_shape.TensorShape(shape_x), _tensor_shape.TensorShape(shape_y)
    if a.rank is None or b.rank is None:
        return _tensor_shape.TensorShape(None)
    dims = []
    for i in range(max(a.rank, b.rank)):
        da = a[a.rank - 1 - i] if i < a.rank else 1
        db = b[b.rank - 1 - i] if i < b.rank else 1
        if da is None or db is None:
            dims.append(db if da == 1 else da if db == 1 else None)
        elif da == db or db == 1:
            dims.append(da)
        elif da == 1:
            dims.append(db)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting. Got {a} and {b}.")
    return _tensor_shape.TensorShape(dims[::-1])


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Any:
    """``tf.broadcast_dynamic_shape``: the broadcast shape of two shape vectors, as a tensor."""

    x = _array_ops.convert_to_tensor(shape_x)
    y = _array_ops.cast(_array_ops.convert_to_tensor(shape_y), x.dtype)
    # zeros of each shape broadcast against each other: the result's shape is the answer.
    return _array_ops.shape(_array_ops.zeros(x, _dtypes.int8) + _array_ops.zeros(y, _dtypes.int8), out_type=x.dtype)


def reverse_sequence(
    input: Any, seq_lengths: Any, seq_axis: Any = None, batch_axis: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.reverse_sequence``: reverses the first ``seq_lengths[b]`` entries along ``seq_axis``
    of each batch entry ``b``."""

    x = _array_ops.convert_to_tensor(input)
    lengths = _array_ops.cast(_array_ops.convert_to_tensor(seq_lengths), _dtypes.int32)
    seq_axis = int(seq_axis) % x.shape.rank
    batch_axis = int(batch_axis or 0) % x.shape.rank
    n = _array_ops.shape(x)[seq_axis]
    pos = _array_ops.range(n)
    rev = _array_ops.expand_dims(lengths, 1) - 1 - _array_ops.expand_dims(pos, 0)  # [batch, time]
    idx = _array_ops.where(
        rev >= 0, rev, _manip_ops.broadcast_to(_array_ops.expand_dims(pos, 0), _array_ops.shape(rev))
    )
    # Move batch and seq axes to the front, gather per batch row, move back.
    perm = [batch_axis, seq_axis] + [i for i in range(x.shape.rank) if i not in (batch_axis, seq_axis)]
    xt = _array_ops.transpose(x, perm)
    out = _array_ops.gather(xt, idx, axis=1, batch_dims=1)
    inverse = list(np.argsort(perm))
    return _array_ops.transpose(out, inverse)


def searchsorted(
    sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.searchsorted``: per row, the insertion index of each value (``side`` left/right)."""

    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    seq = _array_ops.convert_to_tensor(sorted_sequence)
    vals = _array_ops.convert_to_tensor(values, seq.dtype)
    out_type = _dtypes.as_dtype(out_type or _dtypes.int32)
    cmp = _math_ops.less_equal if side == "right" else _math_ops.less
    # count of sequence entries before each value: sum over the last axis of seq < value.
    hits = cmp(_array_ops.expand_dims(seq, -2), _array_ops.expand_dims(vals, -1))
    return _array_ops.cast(_math_ops.reduce_sum(_array_ops.cast(hits, _dtypes.int64), axis=-1), out_type)


class _UniqueWithCounts(NamedTuple):
    y: Any
    idx: Any
    count: Any


def unique_with_counts(x: Any, out_idx: Any = None, name: Optional[str] = None) -> Any:
    """``tf.unique_with_counts``: ``(y, idx, count)`` of a 1-D tensor, in first-seen order."""

    out_idx = _dtypes.as_dtype(out_idx or _dtypes.int32)
    y, idx = _manip_ops.unique(x, out_idx=out_idx)
    count = _segment_ops.unsorted_segment_sum(_math_ops.ones_like(idx), idx, _array_ops.shape(y, out_type=out_idx)[0])
    return _UniqueWithCounts(y, idx, count)


def _shift_args(x: Any, y: Any) -> tuple:

    x = _array_ops.convert_to_tensor(x)
    y = _array_ops.convert_to_tensor(y, dtype=x.dtype)
    if not x.dtype.is_integer:
        raise TypeError(
            f"Value passed to parameter 'x' has DataType {x.dtype.name} not in list of allowed "
            "values: int8, int16, int32, int64, uint8, uint16, uint32, uint64"
        )
    return x, y


def left_shift(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.bitwise.left_shift``: bits shifted out are lost; the shift is clamped to
    [0, bits - 1] (TF's LeftShift kernel)."""
    x, y = _shift_args(x, y)
    return _core.execute("LeftShift", [x, y], None, name or "LeftShift")[0]


def right_shift(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.bitwise.right_shift``: arithmetic for signed types (sign-extending); the shift is
    clamped to [0, bits - 1] (TF's RightShift kernel)."""
    x, y = _shift_args(x, y)
    return _core.execute("RightShift", [x, y], None, name or "RightShift")[0]
