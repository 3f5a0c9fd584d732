"""Clipping and norms, composed of existing ops exactly as TensorFlow's ``clip_ops`` and
``linalg_ops.norm`` compose them: ``tf.clip_by_value``, ``tf.clip_by_norm``, ``tf.linalg.global_norm``,
``tf.clip_by_global_norm``, ``tf.norm``."""

from __future__ import annotations

import collections.abc
from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, convert_to_tensor, identity, reshape, squeeze, stack, where
from fn._ops.math_ops import abs, maximum, minimum, ones_like, reduce_max, reduce_sum, sqrt


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: Optional[str] = None) -> Any:
    """``tf.clip_by_value``: ``min(max(t, clip_value_min), clip_value_max)`` elementwise; the
    bounds may broadcast, but not grow ``t``'s shape."""
    values = convert_to_tensor(t)
    t_min = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min, name=name)
    values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None) -> Any:
    """``tf.clip_by_norm``: ``t * clip_norm / max(l2norm(t), clip_norm)`` (norm over ``axes``)."""
    values = convert_to_tensor(t)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    values.shape.assert_is_compatible_with(intermediate.shape)
    return identity(intermediate / maximum(l2norm, clip_norm), name=name)


def global_norm(t_list: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.global_norm``: ``sqrt(sum(l2norm(t)**2 for t in t_list))`` (None skipped)."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    values = [convert_to_tensor(t) for t in t_list if t is not None]
    half = [reduce_sum(v * v) / convert_to_tensor(2, v.dtype) for v in values]
    half_squared_norm = reduce_sum(stack(half))
    return sqrt(half_squared_norm * convert_to_tensor(2.0, half_squared_norm.dtype), name=name or "global_norm")


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None, name: Optional[str] = None) -> tuple:
    """``tf.clip_by_global_norm``: every tensor scaled by ``clip_norm / max(global_norm,
    clip_norm)``; returns (clipped list, global norm). NaN/inf norms give NaN tensors."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    use_norm = convert_to_tensor(use_norm)
    one = convert_to_tensor(1.0, use_norm.dtype)
    clip = _core.convert_to_tensor(clip_norm, None, use_norm.dtype)
    scale_for_finite = clip * minimum(one / use_norm, one / clip)
    scale = scale_for_finite + (use_norm - use_norm)
    clipped = [
        None if t is None else identity(convert_to_tensor(t) * cast(scale, convert_to_tensor(t).dtype)) for t in t_list
    ]
    return clipped, use_norm


def norm(
    tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.norm``: vector norms (``ord`` 1, 2/'euclidean', inf, or p > 0) over ``axis`` (None:
    all elements), and matrix norms ('fro', 1, inf) over a pair of axes."""
    keepdims = bool(keepdims)
    if isinstance(axis, list):
        axis = tuple(axis)
    is_matrix = isinstance(axis, tuple) and len(axis) == 2
    supported_matrix = ("euclidean", "fro", 1, 2, np.inf)
    supported_vector = ("euclidean", 1, 2, np.inf)
    if is_matrix:
        if ord not in supported_matrix:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported_matrix}, got {ord}")
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    elif axis is not None and not isinstance(axis, int):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    elif not ((isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0) or ord in supported_vector):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    x = convert_to_tensor(tensor)
    rank = x._rank
    if is_matrix:
        axis = [a % rank if rank > 0 and a < 0 else a for a in axis]  # rank 0: the reduction refuses
        if ord in ("euclidean", "fro"):
            result = sqrt(reduce_sum(x * x, axis, keepdims=True))
        elif ord == 2:
            raise NotImplementedError("fn.norm: the matrix 2-norm (largest singular value) is not supported")
        else:
            sum_axis, max_axis = axis[0], axis[1]
            if ord == np.inf:
                sum_axis, max_axis = max_axis, sum_axis
            result = reduce_max(reduce_sum(abs(x), sum_axis, keepdims=True), max_axis, keepdims=True)
    else:
        if ord in ("euclidean", 2, 2.0):
            result = sqrt(reduce_sum(x * x, axis, keepdims=True))
        elif ord == 1:
            result = reduce_sum(abs(x), axis, keepdims=True)
        elif ord == np.inf:
            result = reduce_max(abs(x), axis, keepdims=True)
        else:
            p = convert_to_tensor(float(ord), x.dtype)
            result = reduce_sum(abs(x) ** p, axis, keepdims=True) ** (convert_to_tensor(1.0, x.dtype) / p)
    if not keepdims:
        if axis is None:
            result = reshape(result, [])
        else:
            result = squeeze(result, axis)
    return identity(result, name=name) if name else result
