"""Shape manipulation, joining, splitting and selection of ``tf.experimental.numpy``
(TF's ``np_array_ops``), on fn tensors; works on eager and symbolic tensors."""

from __future__ import annotations

import builtins
from typing import Any, List, Optional, Sequence

import numpy as np

from fn._ops import array_ops as _array_ops
from fn._ops import clip_ops as _clip_ops
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn import dtypes as _fn_dtypes
from fn._numpy._utils import asarray, is_ndarray, norm_axis, promote_dtype, shape_list


def _ndim(a: Any) -> int:
    r = a.shape.rank
    if r is None:
        raise ValueError("The rank of the array must be known.")
    return r


def reshape(a: Any, newshape: Any, order: str = "C") -> Any:
    """``tnp.reshape`` (``order`` 'C' or 'F')."""
    if order not in {"C", "F"}:
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    if isinstance(newshape, int):
        newshape = [newshape]
    if order == "F":
        return _array_ops.transpose(_array_ops.reshape(_array_ops.transpose(a), list(newshape)[::-1]))
    return _array_ops.reshape(a, newshape)


def reshape_method(a: Any, *newshape: Any, **kwargs: Any) -> Any:
    """``Tensor.reshape`` under NumPy behaviour: ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


def ravel(a: Any) -> Any:
    """``tnp.ravel``."""
    return _array_ops.reshape(asarray(a), [-1])


def flatten(a: Any, order: str = "C") -> Any:
    """``tnp.flatten`` (row major for 'C', 'A', 'K'; column major for 'F')."""
    a = asarray(a)
    if order in ("C", "A", "K"):
        return _array_ops.reshape(a, [-1])
    if order == "F":
        return _array_ops.reshape(_array_ops.transpose(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


def transpose(a: Any, axes: Any = None) -> Any:
    """``tnp.transpose``."""
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return _array_ops.transpose(a, perm=axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """``tnp.swapaxes``."""
    a = asarray(a)
    n = _ndim(a)
    axis1, axis2 = norm_axis(axis1, n), norm_axis(axis2, n)
    perm = list(range(n))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _array_ops.transpose(a, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """``tnp.moveaxis``."""
    a = asarray(a)
    n = _ndim(a)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError("The lengths of source and destination must equal")
    src = [norm_axis(s, n) for s in src]
    dst = [norm_axis(d, n) for d in dst]
    perm = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _array_ops.transpose(a, perm)


def expand_dims(a: Any, axis: int) -> Any:
    """``tnp.expand_dims``."""
    return _array_ops.expand_dims(asarray(a), axis=axis)


def squeeze(a: Any, axis: Any = None) -> Any:
    """``tnp.squeeze``."""
    return _array_ops.squeeze(asarray(a), axis)


def atleast_1d(*arys: Any) -> Any:
    """``tnp.atleast_1d``."""
    return _atleast(1, arys)


def atleast_2d(*arys: Any) -> Any:
    """``tnp.atleast_2d``."""
    return _atleast(2, arys)


def atleast_3d(*arys: Any) -> Any:
    """``tnp.atleast_3d`` (a 1-D ``x`` becomes ``[1, N, 1]``, a 2-D one ``[M, N, 1]``)."""

    def f(x: Any) -> Any:
        x = asarray(x)
        r = _ndim(x)
        if r == 0:
            return _array_ops.reshape(x, [1, 1, 1])
        if r == 1:
            return _array_ops.reshape(x, [1, -1, 1])
        if r == 2:
            return _array_ops.expand_dims(x, -1)
        return x

    out = [f(x) for x in arys]
    return out[0] if len(out) == 1 else out


def _atleast(n: int, arys: Sequence[Any]) -> Any:
    def f(x: Any) -> Any:
        x = asarray(x)
        r = _ndim(x)
        if r < n:
            x = _array_ops.reshape(x, [1] * (n - r) + shape_list(x)) if r else _array_ops.reshape(x, [1] * n)
        return x

    out = [f(x) for x in arys]
    return out[0] if len(out) == 1 else out


def concatenate(arys: Sequence[Any], axis: Optional[int] = 0) -> Any:
    """``tnp.concatenate`` (``axis=None`` concatenates the flattened arrays)."""
    if not isinstance(arys, (list, tuple)):
        arys = list(_array_ops.unstack(asarray(arys)))
    if not arys:
        raise ValueError("Need at least one array to concatenate.")
    arys = promote_dtype(*arys)
    if axis is None:
        arys = [ravel(a) for a in arys]
        axis = 0
    return _array_ops.concat(arys, axis=axis)


def stack(arrays: Sequence[Any], axis: int = 0) -> Any:
    """``tnp.stack``."""
    if is_ndarray(arrays):
        arrays = asarray(arrays)
        if axis == 0:
            return arrays
        return swapaxes(arrays, 0, axis)
    return _array_ops.stack(promote_dtype(*arrays), axis)


def hstack(tup: Sequence[Any]) -> Any:
    """``tnp.hstack``."""
    arrays = [atleast_1d(a) for a in tup]
    arrays = promote_dtype(*arrays)
    return _array_ops.concat(arrays, 0 if _ndim(arrays[0]) == 1 else 1)


def vstack(tup: Sequence[Any]) -> Any:
    """``tnp.vstack``."""
    arrays = [atleast_2d(a) for a in tup]
    return _array_ops.concat(promote_dtype(*arrays), 0)


def dstack(tup: Sequence[Any]) -> Any:
    """``tnp.dstack``."""
    arrays = [atleast_3d(a) for a in tup]
    return _array_ops.concat(promote_dtype(*arrays), 2)


def append(arr: Any, values: Any, axis: Optional[int] = None) -> Any:
    """``tnp.append``."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def _boundaries_to_sizes(a: Any, boundaries: Sequence[int], axis: int) -> List[int]:
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError(f"boundaries must be a list or tuple. Received: {boundaries}")
    total = a.shape[axis]
    sizes, prev = [], 0
    for b in boundaries:
        b = builtins.min(builtins.max(b, prev), total)
        sizes.append(b - prev)
        prev = b
    sizes.append(total - prev)
    return sizes


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> List[Any]:
    """``tnp.split``: equal sections (an int) or split points (a list)."""
    ary = asarray(ary)
    if not isinstance(indices_or_sections, int):
        indices_or_sections = _boundaries_to_sizes(ary, indices_or_sections, axis)
    elif ary.shape[axis] is not None and ary.shape[axis] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return _array_ops.split(ary, indices_or_sections, axis=axis)


def _split_on_axis(axis: int, name: str) -> Any:
    def f(ary: Any, indices_or_sections: Any) -> List[Any]:
        ary = asarray(ary)
        new_axis = 0 if (axis == 1 and _ndim(ary) == 1) else axis
        return split(ary, indices_or_sections, axis=new_axis)

    f.__name__ = name
    f.__doc__ = f"``tnp.{name}``."
    return f


vsplit = _split_on_axis(0, "vsplit")
hsplit = _split_on_axis(1, "hsplit")
dsplit = _split_on_axis(2, "dsplit")


def flip(m: Any, axis: Any = None) -> Any:
    """``tnp.flip``."""
    m = asarray(m)
    if axis is None:
        return _manip_ops.reverse(m, list(range(_ndim(m))))
    axes = [axis] if isinstance(axis, int) else list(axis)
    return _manip_ops.reverse(m, [norm_axis(a, _ndim(m)) for a in axes])


def flipud(m: Any) -> Any:
    """``tnp.flipud``."""
    return flip(m, 0)


def fliplr(m: Any) -> Any:
    """``tnp.fliplr``."""
    return flip(m, 1)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """``tnp.roll`` (``axis=None`` rolls the flattened array)."""
    a = asarray(a)
    if axis is not None:
        return _manip_ops.roll(a, shift, axis)
    original_shape = _array_ops.shape(a)
    return _array_ops.reshape(_manip_ops.roll(_array_ops.reshape(a, [-1]), shift, 0), original_shape)


def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Any:
    """``tnp.rot90``."""
    m = asarray(m)
    n = _ndim(m)
    ax1, ax2 = norm_axis(axes[0], n), norm_axis(axes[1], n)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(n))
    perm[ax1], perm[ax2] = ax2, ax1
    if k == 1:
        return _array_ops.transpose(flip(m, ax2), perm)
    return flip(_array_ops.transpose(m, perm), ax2)


def tile(a: Any, reps: Any) -> Any:
    """``tnp.tile``."""
    a = asarray(a)
    reps = [reps] if isinstance(reps, int) else list(np.asarray(reps).reshape(-1)) if not is_ndarray(reps) else reps
    if is_ndarray(reps):
        return _array_ops.tile(a, reps)
    n, r = _ndim(a), len(reps)
    if r < n:
        reps = [1] * (n - r) + list(reps)
    elif n < r:
        a = _array_ops.reshape(a, [1] * (r - n) + shape_list(a)) if n else _array_ops.reshape(a, [1] * r)
    return _array_ops.tile(a, [int(x) for x in reps])


def repeat(a: Any, repeats: Any, axis: Optional[int] = None) -> Any:
    """``tnp.repeat``."""
    a = asarray(a)
    repeats = asarray(repeats)
    if axis is None:
        a = ravel(a)
        axis = 0
    return _manip_ops.repeat(a, repeats, axis)


def pad(array: Any, pad_width: Any, mode: str, **kwargs: Any) -> Any:
    """``tnp.pad`` (modes 'constant', 'reflect' and 'symmetric': ``tf.pad``'s, as TF's tnp)."""
    constant_values = kwargs.get("constant_values", 0)
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    array = asarray(array)
    pad_width = asarray(pad_width, dtype=_fn_dtypes.int32)
    return _array_ops.pad(array, pad_width, mode=mode.upper(), constant_values=constant_values)


def take(a: Any, indices: Any, axis: Optional[int] = None, out: Any = None, mode: str = "clip") -> Any:
    """``tnp.take`` (``out`` unsupported; mode 'clip' (default) or 'wrap')."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = asarray(a)
    indices = asarray(indices)
    if axis is None:
        a = _array_ops.reshape(a, [-1])
        axis = 0
    axis_size = _array_ops.cast(_array_ops.shape(a)[axis], indices.dtype)
    if mode == "clip":
        indices = _clip_ops.clip_by_value(indices, 0, axis_size - 1)
    elif mode == "wrap":
        indices = _math_ops.floormod(indices, axis_size)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return _array_ops.gather(a, indices, axis=axis)


def take_along_axis(arr: Any, indices: Any, axis: Optional[int]) -> Any:
    """``tnp.take_along_axis``."""
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
        return take_along_axis(ravel(arr), indices, 0)
    n = _ndim(arr)
    axis = norm_axis(axis, n)
    a_shape, i_shape = shape_list(arr), shape_list(indices)
    if len(i_shape) != n:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    bshape = [builtins.max(x, y) if i != axis else None for i, (x, y) in enumerate(zip(a_shape, i_shape))]
    arr = _manip_ops.broadcast_to(arr, [a_shape[axis] if d is None else d for d in bshape])
    indices = _manip_ops.broadcast_to(indices, [i_shape[axis] if d is None else d for d in bshape])
    # Move the axis last, gather along it with batch dims, and move it back.
    perm = [i for i in range(n) if i != axis] + [axis]
    inv = list(np.argsort(perm))
    idx = _array_ops.where(indices < 0, indices + _array_ops.cast(a_shape[axis], indices.dtype), indices)
    out = _array_ops.gather(
        _array_ops.transpose(arr, perm), _array_ops.transpose(idx, perm), batch_dims=n - 1, axis=n - 1
    )
    return _array_ops.transpose(out, [int(i) for i in inv])


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``tnp.where``: ``nonzero(condition)`` or an elementwise choice between ``x`` and ``y``."""
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = promote_dtype(x, y)
        return _array_ops.where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """``tnp.select``: the first choice whose condition holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote_dtype(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(list(condlist)[::-1], choices[1:][::-1]):
        output = where(cond, choice, output)
    return output


def compress(condition: Any, a: Any, axis: Optional[int] = None) -> Any:
    """``tnp.compress``."""
    condition = asarray(condition, dtype=bool)
    a = asarray(a)
    if _ndim(condition) != 1:
        raise ValueError("condition must be a 1-d array.")
    if _ndim(a) == 0:
        a = ravel(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = norm_axis(axis, _ndim(a))
    if condition.shape[0] < a.shape[axis]:
        condition = _array_ops.concat([condition, _array_ops.fill([a.shape[axis] - condition.shape[0]], False)], 0)
    return _manip_ops.boolean_mask(a, condition, axis=axis)


def nonzero(a: Any) -> Any:
    """``tnp.nonzero``: one int64 index vector per dimension."""
    a = atleast_1d(a)
    if a.shape.rank is None:
        raise ValueError("The rank of `a` is unknown, so we can't decide how many arrays to return.")
    return tuple(_array_ops.unstack(_array_ops.where(_array_ops.cast(a, _fn_dtypes.bool_)), a.shape.rank, axis=1))


def broadcast_arrays(*args: Any, **kwargs: Any) -> List[Any]:
    """``tnp.broadcast_arrays``."""
    subok = kwargs.pop("subok", False)
    if subok:
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs.keys()}")
    arrays = [asarray(a) for a in args]
    if len(arrays) <= 1:
        return arrays
    shape = _array_ops.shape(arrays[0])
    for a in arrays[1:]:
        shape = _array_ops.shape(
            _array_ops.zeros(shape, _fn_dtypes.bool_) | _array_ops.zeros(_array_ops.shape(a), _fn_dtypes.bool_)
        )
    return [_manip_ops.broadcast_to(a, shape) for a in arrays]


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``tnp.diagonal``: the ``offset`` diagonal of the ``axis1``/``axis2`` planes, as the last axis."""
    a = asarray(a)
    n = _ndim(a)
    if n < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = norm_axis(axis1, n), norm_axis(axis2, n)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [i for i in range(n) if i not in (axis1, axis2)]
    at = _array_ops.transpose(a, [axis1, axis2] + rest)
    shp = shape_list(at)
    rows = shp[0] - builtins.max(-offset, 0)
    cols = shp[1] - builtins.max(offset, 0)
    length = (
        _math_ops.maximum(_math_ops.minimum(rows, cols), 0)
        if is_ndarray(rows) or is_ndarray(cols)
        else builtins.max(builtins.min(rows, cols), 0)
    )
    idx = _array_ops.range(length)
    coords = _array_ops.stack([idx + builtins.max(-offset, 0), idx + builtins.max(offset, 0)], axis=1)
    out = _array_ops.gather_nd(at, coords)
    return _array_ops.transpose(out, list(range(1, n - 1)) + [0]) if n > 2 else out


def shape(a: Any) -> Any:
    """``tnp.shape``: the static ``TensorShape``."""
    return asarray(a).shape


def ndim(a: Any) -> Any:
    """``tnp.ndim``."""
    return asarray(a).shape.ndims


def isscalar(num: Any) -> Any:
    """``tnp.isscalar``: a rank-0 array (TF's reading)."""
    return ndim(num) == 0


def size(x: Any, axis: Any = None) -> Any:
    """``tnp.size``."""
    if axis is not None:
        raise NotImplementedError("axis argument is not supported in the current `np.size` implementation")
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = asarray(x)
    if x.shape.is_fully_defined():
        return int(np.prod(x.shape.as_list(), dtype=int))
    return _array_ops.size(x)
