"""Array ops with TensorFlow's names: creation (``fn.constant``, ``fn.fill``, ``fn.ones``,
``fn.zeros``), shapes (``fn.reshape``, ``fn.transpose``, ``fn.shape``, ...), joining and splitting
(``fn.concat``, ``fn.stack``, ``fn.split``, ...), indexing (``fn.gather``, ``fn.slice``,
``fn.where``, ...) and sequences (``fn.range``, ``fn.linspace``, ``fn.one_hot``)."""
from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from fn import _core
from fn.dtypes import DType, as_dtype, float32, float64
from fn._tensor.tensor_shape import TensorShape
from fn._ops.op_call import run_op, wraps_op


def _dt(dtype: Any) -> Optional[DType]:
    return None if dtype is None else as_dtype(dtype)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Any:
    """Creates a constant tensor (``tf.constant``): Python ints become int32, floats float32,
    str/bytes string; NumPy arrays keep their dtype. Inside a Function it is a Const node."""
    dtype = _dt(dtype)
    if isinstance(value, TensorShape):
        value = value._as_array()
    if _core.is_tensor(value) and value._is_eager:
        t = value if dtype is None or value.dtype == dtype else cast(value, dtype)
    else:
        t = _core.to_eager(value, dtype)
    if shape is not None:
        shape = TensorShape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"Shape must be fully defined, got {shape}")
        n = shape.num_elements()
        have = t.shape.num_elements()
        if have == n:
            t = _core.reshape_eager(t, shape)
        elif have == 1:
            with _core.ContextScope(None):   # the value is computed now, even while tracing
                t = _core.execute("Fill", [_core.to_eager(shape.as_list(), "int32"), _core.reshape_eager(t, [])])[0]
        else:
            raise TypeError(
                f"Eager execution of fn.constant with unsupported shape. Tensor {np.asarray(t.numpy())} "
                f"(converted from {value!r}) has {have} elements, but got `shape` {tuple(shape.as_list())} "
                f"with {n} elements).")
    if not _core.executing_eagerly():
        return _core.execute("Const", [], {"value": t, "dtype": t.dtype}, name)[0]
    return t


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: Optional[str] = None) -> Any:
    """``tf.convert_to_tensor``: tensors pass through, Python/NumPy values become constants."""
    return _core.convert_to_tensor(value, _dt(dtype), _dt(dtype_hint))


def _shape_tensor(shape: Any) -> Any:
    if _core.is_tensor(shape):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple, np.ndarray)):   # None, a string...: conversion's error
        return convert_to_tensor(shape, "int32")
    if any(_core.is_tensor(d) for d in shape):
        # TF's autopacking: Python numbers take the dtype of the first tensor ([n, 2], n int64)
        dt = next(d.dtype for d in shape if _core.is_tensor(d))
        return stack([d if _core.is_tensor(d) else convert_to_tensor(d, dt) for d in shape])
    if not len(shape):
        return convert_to_tensor(np.zeros([0], np.int32))
    if any(isinstance(d, int) and not -2**63 <= d < 2**63 for d in shape):
        return convert_to_tensor(list(shape))   # TF converts without a dtype: its conversion error
    # TF's TensorShape conversion: int64 once a dimension needs it (never wrap to int32).
    wide = any(isinstance(d, (int, np.integer)) and not -2**31 <= d < 2**31 for d in shape)
    return convert_to_tensor(list(shape), "int64" if wide else "int32")


def fill(dims: Any, value: Any, name: Optional[str] = None) -> Any:
    """``tf.fill``: a tensor of shape ``dims`` filled with the scalar ``value``."""
    return _core.execute("Fill", [_shape_tensor(dims), convert_to_tensor(value)], None, name)[0]


def ones(shape: Any, dtype: Any = float32, name: Optional[str] = None) -> Any:
    """``tf.ones``."""
    dtype = as_dtype(dtype)
    value = True if dtype.is_bool else 1
    return _core.execute("Fill", [_shape_tensor(shape), convert_to_tensor(value, dtype)], None, name or "ones")[0]


def zeros(shape: Any, dtype: Any = float32, name: Optional[str] = None) -> Any:
    """``tf.zeros``."""
    dtype = as_dtype(dtype)
    value = "" if dtype.name == "string" else (False if dtype.is_bool else 0)
    return _core.execute("Fill", [_shape_tensor(shape), convert_to_tensor(value, dtype)], None, name or "zeros")[0]


def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Any:
    """``tf.cast``; a SparseTensor or IndexedSlices keeps its structure, its values cast (TF's
    math_ops.cast)."""
    dtype = as_dtype(dtype)
    if not _core.is_tensor(x) and hasattr(type(x), "_fn_cast_values"):
        return x._fn_cast_values(lambda v: cast(v, dtype, name))
    x = convert_to_tensor(x)
    if x.dtype == dtype:
        return x
    if not _core.has_op("Cast"):
        raise NotImplementedError("fn.cast needs the Cast op")
    return _core.execute("Cast", [x], {"SrcT": x.dtype, "DstT": dtype, "Truncate": False}, name)[0]


# ---- helpers ----

def _int_tensor(value: Any, dtype_hint: Any = "int32") -> Any:
    """An int32 (or int64, for tensors / values that need it) index tensor."""
    if _core.is_tensor(value):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 0:
        return convert_to_tensor(np.zeros([0], as_dtype(dtype_hint).as_numpy_dtype))
    if _needs_int64(value):   # the hint never wraps values that need 64 bits
        return _core.convert_to_tensor(value, None, None)
    return _core.convert_to_tensor(value, None, as_dtype(dtype_hint))


def _needs_int64(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_needs_int64(v) for v in value)
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and not -2**31 <= value < 2**31


def _attr_int(v: Any, arg: str) -> int:
    """An int attr as TF's ``_execute.make_int``: TypeError for what ``int()`` refuses."""
    if isinstance(v, str):
        raise TypeError(f"Expected int for argument '{arg}' not {v!r}.")
    try:
        return int(v)
    except (TypeError, ValueError):
        raise TypeError(f"Expected int for argument '{arg}' not {v!r}.") from None


def _rank_of(t: Any) -> Optional[int]:
    r = t._rank
    return None if r < 0 else r


def _static_shape(t: Any) -> Optional[list]:
    s = t._shape_tuple
    if s is None or any(d is None for d in s):
        return None
    return list(s)


def _graph_const(value: Any, dtype: Any, name: str) -> Any:
    """A constant named like TensorFlow's folded shape ops (a Const node while tracing)."""
    return constant(np.asarray(value, dtype=as_dtype(dtype).as_numpy_dtype), dtype=dtype, name=name)


def _common_dtype_convert(values: Any) -> list:
    """Converts a list of values, giving Python values the dtype of the first tensor (or NumPy
    value) among them."""
    hint = next((v.dtype for v in values if _core.is_tensor(v)), None)
    if hint is None:
        hint = next((as_dtype(v.dtype) for v in values if isinstance(v, (np.ndarray, np.generic))), None)
    return [_core.convert_to_tensor(v, None, hint) for v in values]


# ---- shapes ----

def reshape(tensor: Any, shape: Any, name: Optional[str] = None) -> Any:
    """``tf.reshape``: same elements, new shape (one dimension may be -1)."""
    return run_op("Reshape", [convert_to_tensor(tensor), _shape_tensor(shape)], None, name)


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Any:
    """``tf.transpose``: permutes dimensions (reverses them when ``perm`` is None)."""
    a = convert_to_tensor(a)
    if perm is None:
        rank = _rank_of(a)
        if rank is None:
            raise ValueError("fn.transpose without `perm` needs a tensor of known rank")
        perm = list(builtins.range(rank - 1, -1, -1))
    return run_op("Transpose", [a, _int_tensor(perm)], None, name)


def expand_dims(input: Any, axis: Any, name: Optional[str] = None) -> Any:
    """``tf.expand_dims``: inserts a dimension of size 1 at ``axis``."""
    return run_op("ExpandDims", [convert_to_tensor(input), _int_tensor(axis)], None, name)


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """``tf.squeeze``: removes dimensions of size 1 (all of them, or those in ``axis``)."""
    if axis is None:
        axis = []
    elif not isinstance(axis, (list, tuple)):
        axis = [axis]
    axis = [_attr_int(a, "axis") for a in axis]
    return run_op("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axis}, name)


def shape(input: Any, out_type: Any = None, name: Optional[str] = None) -> Any:
    """``tf.shape``: the shape as a 1-D int32 tensor (a constant when the shape is static)."""
    out_type = as_dtype(out_type or "int32")
    if getattr(type(input), "_fn_is_sparse", False):  # a SparseTensor: its dense_shape (TF's)
        return cast(input.dense_shape, out_type, name)
    input = convert_to_tensor(input)
    static = _static_shape(input)
    if static is not None:
        return _graph_const(static, out_type, name or "Shape")
    return run_op("Shape", [input], {"out_type": out_type}, name)


def shape_n(input: Any, out_type: Any = None, name: Optional[str] = None) -> list:
    """``tf.shape_n``."""
    return [shape(t, out_type) for t in input]


def size(input: Any, out_type: Any = None, name: Optional[str] = None) -> Any:
    """``tf.size``: the number of elements as a scalar int32 tensor."""
    out_type = as_dtype(out_type or "int32")
    if getattr(type(input), "_fn_is_sparse", False):  # a SparseTensor: the product of its dense_shape (TF's)
        dims = cast(input.dense_shape, out_type)
        return run_op("Prod", [dims, convert_to_tensor(np.int32(0))], {"keep_dims": False}, name or "Size")
    input = convert_to_tensor(input)
    static = _static_shape(input)
    if static is not None:
        return _graph_const(int(np.prod(static, dtype=np.int64)), out_type, name or "Size")
    return run_op("Size", [input], {"out_type": out_type}, name)


def rank(input: Any, name: Optional[str] = None) -> Any:
    """``tf.rank``: the number of dimensions as a scalar int32 tensor."""
    input = convert_to_tensor(input)
    r = _rank_of(input)
    if r is not None:
        return _graph_const(r, "int32", name or "Rank")
    return run_op("Rank", [input], None, name)


@wraps_op("Identity")
def identity(input: Any, name: Optional[str] = None) -> Any:
    """``tf.identity``."""
    return run_op("Identity", [convert_to_tensor(input)], None, name)


def tile(input: Any, multiples: Any, name: Optional[str] = None) -> Any:
    """``tf.tile``: repeats the tensor ``multiples[i]`` times along dimension i."""
    x = convert_to_tensor(input)
    if isinstance(multiples, (list, tuple)) and not all(
            _core.is_tensor(d) or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)) for d in multiples):
        # TF converts them as they are (floats stay floats): the op's Tmultiples check raises
        return run_op("Tile", [x, convert_to_tensor(multiples)], None, name)
    return run_op("Tile", [x, _shape_tensor(multiples)], None, name)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: Optional[str] = None) -> Any:
    """``tf.pad``: pads with ``constant_values`` (mode CONSTANT) or with the tensor's mirror image
    (REFLECT: without the edge, SYMMETRIC: with it; TF's MirrorPad); ``paddings`` is [rank, 2]."""
    mode = mode.upper()   # TF's wrapper: NumPy's lower-case modes work too
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    tensor = convert_to_tensor(tensor)
    if not _core.is_tensor(paddings) and np.size(paddings) == 0:
        paddings = np.zeros([0, 2], np.int32)   # a scalar's (empty) paddings keep their [0, 2] shape
    paddings = _int_tensor(paddings)
    if mode != "CONSTANT":
        return run_op("MirrorPad", [tensor, paddings], {"mode": mode}, name)
    if not _core.is_tensor(constant_values) and np.ndim(constant_values) == 0 and constant_values == 0:
        return run_op("Pad", [tensor, paddings], None, name)
    cv = _core.convert_to_tensor(constant_values, tensor.dtype)
    return run_op("PadV2", [tensor, paddings, cv], None, name)


# ---- joining and splitting ----

def concat(values: Any, axis: Any, name: str = "concat") -> Any:
    """``tf.concat``: joins tensors along an existing axis."""
    values = list(values)
    if not values and _core.executing_eagerly():   # TF's eager kernel lookup for N=0 (no dtype T)
        from fn.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, None, "OpKernel 'ConcatV2' has constraint on attr 'T' not in NodeDef '[N=0, Tidx=DT_INT32]' "
            "[Op:ConcatV2] name: concat")
    if len(values) == 1:
        return identity(convert_to_tensor(values[0]), name=name)
    values = _common_dtype_convert(values)
    return run_op("ConcatV2", values + [_int_tensor(axis)], {"N": len(values)}, name)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Any:
    """``tf.stack``: joins tensors of the same shape along a new axis (the Pack op)."""
    values = list(values)
    axis = _attr_int(axis, "axis")
    if not any(_core.is_tensor(v) or isinstance(v, (np.ndarray, np.generic)) for v in values):
        # Python values only: TensorFlow converts the whole list to one constant.
        t = _core.to_eager(values, None)   # a value now, even while tracing
        r = _rank_of(t)
        if axis < -r or axis >= r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
        if axis in (0, -r):
            return t if _core.executing_eagerly() else run_op("Const", [], {"value": t, "dtype": t.dtype}, name)
        perm = list(builtins.range(1, r))
        perm.insert(axis % r, 0)
        return transpose(t, perm, name=name)
    values = _common_dtype_convert(values)
    r = _rank_of(values[0])
    if r is not None and (axis < -(r + 1) or axis >= r + 1):
        raise ValueError(f"Argument `axis` = {axis} not in range [{-(r + 1)}, {r + 1})")
    return run_op("Pack", values, {"axis": axis, "N": len(values)}, name)


def unstack(value: Any, num: Optional[int] = None, axis: int = 0, name: str = "unstack") -> list:
    """``tf.unstack``: splits a tensor into a list of tensors along ``axis`` (the Unpack op)."""
    value = convert_to_tensor(value)
    axis = _attr_int(axis, "axis")
    if num is not None:
        num = _attr_int(num, "num")
        if num >= 2**31:
            raise ValueError(f"Number of outputs is too big: {num}")
    shp = value._shape_tuple
    if shp is not None:
        r = len(shp)
        if axis < -r or axis >= r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
        if num is None:
            num = shp[axis]
    if num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    return _core.execute("Unpack", [value], {"num": num, "axis": axis}, name)


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: Optional[int] = None,
          name: str = "split") -> list:
    """``tf.split``: ``num_or_size_splits`` equal pieces (an int) or pieces of the given sizes."""
    value = convert_to_tensor(value)
    axis_t = _int_tensor(axis)
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(num_or_size_splits, bool):
        if num_or_size_splits >= 2**31:
            raise ValueError(f"Number of outputs is too big: {num_or_size_splits}")
        return _core.execute("Split", [axis_t, value], {"num_split": int(num_or_size_splits)}, name)
    sizes = _int_tensor(num_or_size_splits)
    if num is None:
        shp = sizes._shape_tuple
        if not shp or shp[0] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
        num = shp[0]
    return _core.execute("SplitV", [value, sizes, axis_t], {"num_split": num}, name)


# ---- indexing ----

def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
           name: Optional[str] = None) -> Any:
    """``tf.gather``: slices of ``params`` along ``axis`` at ``indices``."""
    if axis is None:
        axis = batch_dims
    params = convert_to_tensor(params)
    return run_op("GatherV2", [params, _int_tensor(indices), _int_tensor(axis)],
                    {"batch_dims": int(batch_dims)}, name)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: Optional[str] = None) -> Any:
    """``tf.gather_nd``: slices of ``params`` at the index tuples in ``indices``' last dimension."""
    if batch_dims != 0:
        raise NotImplementedError("fn.gather_nd supports batch_dims=0 only")
    return run_op("GatherNd", [convert_to_tensor(params), _int_tensor(indices)], None, name)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None) -> Any:
    """``tf.scatter_nd``: ``updates`` summed into zeros of ``shape`` at ``indices``."""
    indices = _int_tensor(indices)
    return run_op("ScatterNd", [indices, convert_to_tensor(updates), _int_tensor(shape, indices.dtype)], None, name)


def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None) -> Any:
    """``tf.slice``: the block starting at ``begin`` of extent ``size`` (-1: to the end)."""
    begin = _int_tensor(begin)
    return run_op("Slice", [convert_to_tensor(input_), begin, _int_tensor(size, begin.dtype)], None, name)


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0, end_mask: int = 0,
                  ellipsis_mask: int = 0, new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                  name: Optional[str] = None) -> Any:
    """``tf.strided_slice``."""
    begin = _int_tensor(begin)
    end = _int_tensor(end, begin.dtype)
    strides = _int_tensor(strides if strides is not None else [1] * int(begin.shape[0]), begin.dtype)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    return run_op("StridedSlice", [convert_to_tensor(input_), begin, end, strides], attrs, name)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Any:
    """``tf.where``: with x and y, elements of x where condition else y (broadcasting, SelectV2);
    alone, the int64 coordinates [N, rank] of the true (non-zero) elements of condition."""
    if x is None and y is None:
        return run_op("Where", [convert_to_tensor(condition)], None, name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    condition = convert_to_tensor(condition, dtype_hint="bool")
    x, y = _common_dtype_convert([x, y])
    return run_op("SelectV2", [condition, x, y], None, name)


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: Any = None,
            dtype: Any = None, name: Optional[str] = None) -> Any:
    """``tf.one_hot``: ``on_value`` where the index equals the position along ``axis``, else ``off_value``."""
    if dtype is None:
        known = next((v for v in (on_value, off_value) if v is not None), None)
        dtype = known.dtype if _core.is_tensor(known) else (convert_to_tensor(known).dtype if known is not None else float32)
    dtype = as_dtype(dtype)
    on = _core.convert_to_tensor(1 if on_value is None else on_value, dtype)
    off = _core.convert_to_tensor(0 if off_value is None else off_value, dtype)
    return run_op("OneHot", [_int_tensor(indices), _int_tensor(depth), on, off],
                    {"axis": -1 if axis is None else int(axis)}, name)


# ---- sequences ----

_RANGE_ORDER = ["int32", "int64", "float32", "float64"]


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Any:
    """``tf.range``: ``start, start + delta, ...`` up to (not including) ``limit``. Python ints give
    int32, any float gives float32, tensors keep their dtype (the widest of the three wins)."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is not None:
        dtype = as_dtype(dtype)
    else:
        kinds = [(a.dtype if _core.is_tensor(a) else convert_to_tensor(a).dtype) for a in args]
        dtype = max(kinds, key=lambda d: _RANGE_ORDER.index(d.name) if d.name in _RANGE_ORDER else -1)
    converted = []
    for a in args:
        if _core.is_tensor(a):
            converted.append(a if a.dtype == dtype else cast(a, dtype))
        else:
            converted.append(_core.convert_to_tensor(np.asarray(a).astype(dtype.as_numpy_dtype), dtype))
    out = run_op("Range", converted, None, name)
    if not out._is_eager:
        # AutoGraph's `for i in fn.range(...)` counts with these instead of materialising the
        # range (fn._autograph.backend.range_loop_bounds); a Python step keeps the test simple.
        step = delta if isinstance(delta, (int, float)) and not isinstance(delta, bool) else converted[2]
        out._fn_range_bounds = (converted[0], converted[1], step)
    return out


def linspace(start: Any, stop: Any, num: Any, name: Optional[str] = None, axis: int = 0) -> Any:
    """``tf.linspace`` (scalar start/stop): ``num`` evenly spaced values from start to stop."""
    start = convert_to_tensor(start)
    stop = _core.convert_to_tensor(stop, start.dtype)   # TF: stop must convert to start's dtype
    if start.dtype.is_integer:
        start, stop = cast(start, float64), cast(stop, float64)
    return run_op("LinSpace", [start, stop, _int_tensor(num)], None, name or "linspace")


newaxis = None
