"""NumPy-style indexing of tensors under ``experimental_enable_numpy_behavior`` (TF's
``np_array_ops._getitem``): integer and boolean arrays (lists, tuples, NumPy arrays, tensors) as
advanced indices, with NumPy's placement of the broadcast index dimensions."""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, Tuple

import numpy as np

from fn._ops import array_ops as _array_ops
from fn._tensor import tensor as _tensor
from fn import dtypes as _fn_dtypes


def _is_advanced(idx: Any) -> bool:
    if isinstance(idx, (list, tuple, np.ndarray)):
        return True
    if isinstance(idx, _tensor.Tensor):
        return idx.dtype is _fn_dtypes.bool_ or (idx.shape.rank is not None and idx.shape.rank > 0)
    return False


def _is_int(idx: Any) -> bool:
    return (isinstance(idx, (numbers.Integral, np.integer)) and not isinstance(idx, (bool, np.bool_))) or (
        isinstance(idx, _tensor.Tensor) and idx.dtype.is_integer and idx.shape.rank == 0
    )


def _expand(spec: Tuple[Any, ...], rank: int) -> List[Any]:
    """The index with its ellipsis expanded and boolean arrays split into one int array per dim."""
    items: List[Any] = []
    for idx in spec:
        if _is_advanced(idx) and not isinstance(idx, _tensor.Tensor):
            arr = np.asarray(idx)
            if arr.dtype == np.object_:
                idx = _array_ops.stack([_array_ops.convert_to_tensor(v) for v in idx])
            else:
                idx = arr
        if isinstance(idx, np.ndarray) and idx.dtype == np.bool_:
            items.extend(np.nonzero(idx))
        elif isinstance(idx, _tensor.Tensor) and idx.dtype is _fn_dtypes.bool_:
            k = idx.shape.rank
            coords = _array_ops.where(idx)
            items.extend(coords[:, i] for i in range(k))
        else:
            items.append(idx)
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [i for i in items if not isinstance(i, (np.ndarray, _tensor.Tensor))]:
        pos = next(n for n, i in enumerate(items) if i is Ellipsis)
        items[pos : pos + 1] = [slice(None)] * (rank - consumed)
    else:
        items.extend([slice(None)] * (rank - consumed))
    return items


def getitem(tensor: Any, slice_spec: Any, basic_getitem: Callable) -> Any:
    """``tensor[slice_spec]`` with NumPy's advanced indexing."""
    spec = slice_spec if isinstance(slice_spec, tuple) else (slice_spec,)
    if not any(_is_advanced(i) for i in spec):
        return basic_getitem(tensor, slice_spec)
    rank = tensor.shape.rank
    if rank is None:
        raise ValueError("Advanced indexing needs a tensor of known rank.")
    items = _expand(spec, rank)
    basic: List[Any] = []
    adv_pos: List[int] = []
    adv_idx: List[Any] = []
    for n, idx in enumerate(items):
        if idx is None:
            basic.append(None)
        elif isinstance(idx, slice):
            basic.append(idx)
        elif _is_int(idx) or isinstance(idx, (np.ndarray, _tensor.Tensor)):
            basic.append(slice(None))
            adv_pos.append(n)
            adv_idx.append(idx)
        else:
            raise IndexError(f"Unsupported index {idx!r}")
    x = basic_getitem(tensor, tuple(basic))
    dims = (
        _array_ops.shape(x, out_type=_fn_dtypes.int64)
        if not x.shape.is_fully_defined()
        else _array_ops.constant(x.shape.as_list(), _fn_dtypes.int64)
    )
    index_tensors = []
    for p, idx in zip(adv_pos, adv_idx):
        t = _array_ops.cast(_array_ops.convert_to_tensor(idx), _fn_dtypes.int64)
        index_tensors.append(_array_ops.where(t < 0, t + dims[p], t))
    # Broadcast the index arrays together (adding zeros broadcasts them).
    zero = index_tensors[0] * 0
    for t in index_tensors[1:]:
        zero = zero + t * 0
    index_tensors = [t + zero for t in index_tensors]
    n = x.shape.rank
    rest = [i for i in range(n) if i not in adv_pos]
    xt = _array_ops.transpose(x, adv_pos + rest) if adv_pos + rest != list(range(n)) else x
    out = _array_ops.gather_nd(xt, _array_ops.stack(index_tensors, axis=-1))
    contiguous = adv_pos == list(range(adv_pos[0], adv_pos[0] + len(adv_pos)))
    b = zero.shape.rank
    if contiguous and adv_pos[0] > 0:
        first = adv_pos[0]
        # out is [B..., rest...]; NumPy keeps the broadcast dims where the indices were.
        perm = list(range(b, b + first)) + list(range(b)) + list(range(b + first, b + len(rest)))
        out = _array_ops.transpose(out, perm)
    return out
