"""Array manipulation with TensorFlow's names: ``tf.broadcast_to``, ``tf.reverse``, ``tf.roll``,
``tf.unique``, ``tf.tensor_scatter_nd_*`` (one C++ op each), and the compositions TensorFlow
itself builds in Python: ``tf.eye``, ``tf.meshgrid``, ``tf.boolean_mask``, ``tf.sequence_mask``,
``tf.repeat``."""

from __future__ import annotations

import collections
from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import (
    _int_tensor,
    _shape_tensor,
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    gather,
    ones,
    range as _range,
    reshape,
    shape,
    squeeze,
    tile,
    where,
)
from fn._ops.math_ops import reduce_max, reduce_prod
from fn.dtypes import as_dtype, bool_, float32, int32
from fn._ops.op_call import run_op as _run

Unique = collections.namedtuple("Unique", ["y", "idx"])


def broadcast_to(input: Any, shape: Any, name: Optional[str] = None) -> Any:
    """``tf.broadcast_to``: ``input`` repeated along size-1 / missing leading dims to ``shape``."""
    return _run("BroadcastTo", [convert_to_tensor(input), _shape_tensor(shape)], None, name)


def reverse(tensor: Any, axis: Any, name: Optional[str] = None) -> Any:
    """``tf.reverse``: ``tensor`` with the dims in ``axis`` (a 1-D list) reversed (ReverseV2)."""
    return _run("ReverseV2", [convert_to_tensor(tensor), _int_tensor(axis)], None, name)


def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None) -> Any:
    """``tf.roll``: elements shifted by ``shift`` along ``axis`` (wrapping around)."""
    shift = _int_tensor(shift)
    return _run("Roll", [convert_to_tensor(input), shift, _int_tensor(axis)], None, name)


def unique(x: Any, out_idx: Any = int32, name: Optional[str] = None) -> Unique:
    """``tf.unique``: the distinct values of 1-D ``x`` in order of first occurrence, and each
    element's index into them."""
    y, idx = _core.execute("Unique", [convert_to_tensor(x)], {"out_idx": as_dtype(out_idx)}, name)
    return Unique(y, idx)


def _scatter(op: str, tensor: Any, indices: Any, updates: Any, name: Optional[str]) -> Any:
    tensor = convert_to_tensor(tensor)
    updates = _core.convert_to_tensor(updates, None, tensor.dtype)
    return _run(op, [tensor, _int_tensor(indices), updates], None, name)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Any:
    """``tf.tensor_scatter_nd_update``: a copy of ``tensor`` with slices at ``indices`` replaced."""
    return _scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Any:
    """``tf.tensor_scatter_nd_add``: a copy of ``tensor`` with ``updates`` added at ``indices``."""
    return _scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Any:
    """``tf.tensor_scatter_nd_sub``: a copy of ``tensor`` with ``updates`` subtracted at ``indices``."""
    return _scatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Any:
    """``tf.tensor_scatter_nd_min``: elementwise minimum with ``updates`` at ``indices``."""
    return _scatter("TensorScatterMin", tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Any:
    """``tf.tensor_scatter_nd_max``: elementwise maximum with ``updates`` at ``indices``."""
    return _scatter("TensorScatterMax", tensor, indices, updates, name)


def eye(
    num_rows: Any, num_columns: Any = None, batch_shape: Any = None, dtype: Any = float32, name: Optional[str] = None
) -> Any:
    """``tf.eye``: an identity matrix (``num_rows`` x ``num_columns``), optionally batched."""
    dtype = as_dtype(dtype)
    rows = _int_tensor(num_rows)
    cols = rows if num_columns is None else _int_tensor(num_columns)
    r = expand_dims(_range(0, rows), 1)
    c = expand_dims(_range(0, cols), 0)
    m = cast(_run("Equal", [r, c], {"incompatible_shape_error": True}), dtype)
    if batch_shape is not None:
        batch = _shape_tensor(batch_shape)
        m = broadcast_to(m, concat([batch, shape(m)], 0))
    return m


def meshgrid(*args: Any, **kwargs: Any) -> list:
    """``tf.meshgrid``: coordinate grids from 1-D tensors (``indexing='xy'`` or ``'ij'``)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        key = list(kwargs.keys())[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    ndim = len(args)
    if not ndim:
        return []
    s0 = (1,) * ndim
    tensors = [convert_to_tensor(a) for a in args]
    output = [reshape(x, s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(tensors)]
    shapes = [_run("Size", [x], {"out_type": int32}) for x in tensors]
    dtype = tensors[0].dtype
    if indexing == "xy" and ndim > 1:
        output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
        output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
        shapes[0], shapes[1] = shapes[1], shapes[0]
    mult = ones(_run("Pack", shapes, {"axis": 0, "N": ndim}), dtype)
    return [x * mult for x in output]


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    """``tf.boolean_mask``: the slices of ``tensor`` (from ``axis`` on) where ``mask`` is true,
    flattened into one dimension."""
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    ndims_mask = mask._rank
    if ndims_mask == 0:
        raise ValueError("mask cannot be scalar.")
    if ndims_mask < 0:
        raise ValueError(
            "Number of mask dimensions must be specified, even if some dimensions are None.  "
            "E.g. shape=[None] is ok, but shape=None is not."
        )
    axis = 0 if axis is None else int(axis)
    rank = tensor._rank
    if axis < 0 and rank >= 0:
        axis += rank
    if rank >= 0:
        tensor.shape[axis : axis + ndims_mask].assert_is_compatible_with(mask.shape)
    shp = shape(tensor)
    leading = reduce_prod(shp[axis : axis + ndims_mask], [0])
    tensor = reshape(tensor, concat([shp[:axis], expand_dims(leading, 0), shp[axis + ndims_mask :]], 0))
    mask = reshape(mask, [-1])
    indices = squeeze(where(mask), axis=[1])
    return gather(tensor, indices, axis=axis)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = bool_, name: Optional[str] = None) -> Any:
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]`` for j below ``maxlen``
    (default: the largest length)."""
    lengths = convert_to_tensor(lengths)
    maxlen_arg = maxlen
    if maxlen is None:
        maxlen = reduce_max(lengths)
        maxlen = _run("Maximum", [convert_to_tensor(0, maxlen.dtype), maxlen])
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen._rank not in (-1, 0):
        raise ValueError(
            f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen_arg} "
            f"with shape '{maxlen.shape}' instead"
        )
    row = _range(convert_to_tensor(0, maxlen.dtype), maxlen, convert_to_tensor(1, maxlen.dtype))
    matrix = cast(expand_dims(lengths, -1), maxlen.dtype)
    result = row < matrix
    dtype = as_dtype(dtype)
    return result if dtype == bool_ else cast(result, dtype)


def repeat(input: Any, repeats: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """``tf.repeat``: each element (slice along ``axis``; None: of the flattened input)
    repeated ``repeats`` times (an int or one count per element)."""
    data = convert_to_tensor(input)
    if axis is None:
        data = reshape(data, [-1])
        axis = 0
    repeats = cast(convert_to_tensor(repeats), int32)
    if repeats._rank > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    if data._rank == 0:
        data = reshape(data, [1])
    rank = data._rank
    if rank < 0:
        raise ValueError("fn.repeat needs a tensor of known rank")
    if axis < -rank or axis >= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    data_shape = shape(data)
    if repeats.shape.num_elements() == 1:
        reps = reshape(repeats, [])
        expanded = expand_dims(data, axis + 1)
        multiples = concat(
            [np.ones([axis + 1], np.int32), expand_dims(reps, 0), np.ones([rank - axis - 1], np.int32)], 0
        )
        tiled = tile(expanded, multiples)
        new = concat([data_shape[:axis], expand_dims(reps * data_shape[axis], 0), data_shape[axis + 1 :]], 0)
        return reshape(tiled, new)
    if repeats._rank == 1:
        d, r = data.shape[axis], repeats.shape[0]
        if d is not None and r is not None and d != r:
            raise ValueError(f"Dimensions {d} and {r} are not compatible")
    repeats = broadcast_to(repeats, expand_dims(data_shape[axis], 0))
    max_repeat = _run("Maximum", [convert_to_tensor(0, int32), reduce_max(repeats)])
    mask = sequence_mask(repeats, max_repeat)
    expanded = expand_dims(data, axis + 1)
    multiples = concat(
        [np.ones([axis + 1], np.int32), expand_dims(max_repeat, 0), np.ones([rank - axis - 1], np.int32)], 0
    )
    return boolean_mask(tile(expanded, multiples), mask, axis=axis)
