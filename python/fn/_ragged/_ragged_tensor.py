"""``tf.RaggedTensor``: a composite value of ``flat_values`` and nested row partitions.

A RaggedTensor of ragged rank k holds ``values`` (a Tensor, or a RaggedTensor of ragged rank
k - 1) and one ``row_splits`` vector (int64 unless asked otherwise, as TF): row ``i`` is
``values[row_splits[i]:row_splits[i + 1]]``. Everything is built from fn ops, so the same code
runs eagerly, while tracing and under a GradientTape (gradients reach ``flat_values``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    gather,
    range as _range,
    shape as _shape,
    stack,
)
from fn._ops.math_ops import maximum, reduce_max
from fn._ops.sort_ops import cumsum
from fn._tensor.tensor_shape import TensorShape, known_rank
from fn.dtypes import as_dtype, int32, int64
from fn._tf_compat._constant_fold import static_value
from fn._ops.array_ops import scatter_nd
from fn._ops.math_ops import ones_like
from fn.errors import InvalidArgumentError
from fn._ops.check_ops import assert_equal, assert_non_negative


def is_ragged(x: Any) -> bool:
    return isinstance(x, RaggedTensor)


def _static_len(t: Any) -> Optional[int]:
    """The static size of dim 0 of ``t`` (None when unknown)."""
    dims = t.shape.as_list() if t.shape.rank is not None else None
    return None if not dims else dims[0]


def _splits_tensor(x: Any, name: str, dtype: Any = None) -> Any:
    """A row-partitioning vector: tensors keep their int32/int64 dtype; Python values are int64."""
    if _core.is_tensor(x):
        t = x
    elif isinstance(x, (list, tuple)) and any(_core.is_tensor(v) for v in x):
        t = convert_to_tensor(x)  # tensors inside a list are packed, as TF converts them
    else:
        arr = np.asarray(x)
        if arr.dtype.kind == "O":  # ints past 64 bits, mixed values: TF's conversion error (int64 hinted)
            _core.convert_to_tensor(x, None, int64)
        if arr.dtype.kind not in "iu" and arr.size:
            raise ValueError(f"{name} must have dtype int32 or int64")
        t = convert_to_tensor(
            arr.astype(np.int64) if arr.size or arr.dtype.kind in "iu" else np.zeros(arr.shape, np.int64)
        )
    if t.dtype not in (int32, int64):
        raise ValueError(f"{name} must have dtype int32 or int64")
    if dtype is not None and t.dtype != dtype:
        t = cast(t, dtype)
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape {t.shape} must have rank 1")
    return t


def _values_tensor(values: Any, splits_dtype: Any) -> Any:
    if isinstance(values, RaggedTensor):
        if values.row_splits.dtype != splits_dtype:
            raise ValueError(
                "dtype mismatch: values.row_splits.dtype="
                f"{values.row_splits.dtype.name}, but row_splits.dtype={splits_dtype.name}"
            )
        return values
    t = values if _core.is_tensor(values) else convert_to_tensor(values)
    if t.shape.rank == 0:  # TF fails slicing the scalar's (missing) first dimension
        raise InvalidArgumentError(None, None, "slice index 0 of dimension 0 out of bounds. [Op:StridedSlice]")
    return t


def _nvals(values: Any, dtype: Any) -> Any:
    """The number of rows of ``values`` as a scalar tensor of ``dtype``."""
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=dtype)
    n = _static_len(values)
    if n is not None:
        return convert_to_tensor(np.array(n, dtype.as_numpy_dtype))
    return cast(_shape(values, out_type=int64)[0], dtype)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise InvalidArgumentError(None, None, message)


def _check_static_nrows(ids: Any, nrows: Any) -> None:
    """TF's RowPartition.from_value_rowids checks on values known while building: ValueError."""

    const_nrows = static_value(nrows)
    if const_nrows is None:
        return
    if const_nrows < 0:
        raise ValueError("Expected nrows >= 0; got %d" % const_nrows)
    const_ids = static_value(ids)
    if const_ids is not None and const_ids.size > 0 and not const_nrows >= const_ids[-1] + 1:
        raise ValueError(
            "Expected nrows >= value_rowids[-1] + 1; got nrows=%d, value_rowids[-1]=%d" % (const_nrows, const_ids[-1])
        )


class RaggedTensor:
    """``tf.RaggedTensor``: a tensor with one or more ragged dimensions.

    Build one with ``fn.ragged.constant`` or the ``from_*`` factories (the constructor is
    internal, as in TF)."""

    if TYPE_CHECKING:  # set by ``_methods.install()`` (they need modules built on this one)

        @classmethod
        def from_tensor(
            cls,
            tensor: Any,
            lengths: Any = None,
            padding: Any = None,
            ragged_rank: int = 1,
            name: Optional[str] = None,
            row_splits_dtype: Any = None,
        ) -> "RaggedTensor": ...

        def __getitem__(self, key: Any) -> Any: ...

    def __init__(
        self,
        values: Any,
        row_splits: Any,
        cached_row_lengths: Any = None,
        cached_value_rowids: Any = None,
        cached_nrows: Any = None,
        internal: bool = False,
        uniform_row_length: Any = None,
    ) -> None:
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods "
                "instead (e.g., RaggedTensor.from_row_lengths())"
            )
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    # ------------------------------------------------------------------ factories
    @classmethod
    def _make(cls, values: Any, splits: Any, validate: bool, uniform_row_length: Any = None) -> "RaggedTensor":
        values = _values_tensor(values, splits.dtype)
        if validate:  # asserts: checked now eagerly, when the graph runs while tracing (as TF)
            assert_equal(
                splits[0],
                cast(0, splits.dtype),
                message="Arguments to from_row_splits do not form a valid RaggedTensor:zero",
            )
            assert_non_negative(
                splits[1:] - splits[:-1],
                message="Arguments to from_row_splits do not form a valid RaggedTensor:monotonic",
            )
            assert_equal(
                splits[-1],
                _nvals(values, splits.dtype),
                message="Arguments to _from_row_partition do not form a valid RaggedTensor",
            )
        return cls(values, splits, internal=True, uniform_row_length=uniform_row_length)

    @classmethod
    def from_row_splits(
        cls, values: Any, row_splits: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_row_splits``: row ``i`` is ``values[row_splits[i]:row_splits[i+1]]``."""
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        dtype = (
            values.row_splits.dtype if isinstance(values, RaggedTensor) and not _core.is_tensor(row_splits) else None
        )
        return cls._make(values, _splits_tensor(row_splits, "row_splits", dtype), validate)

    @classmethod
    def from_row_lengths(
        cls, values: Any, row_lengths: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_row_lengths``: row ``i`` holds the next ``row_lengths[i]`` values."""
        lengths = _splits_tensor(row_lengths, "row_lengths", _partition_dtype(values, row_lengths))
        if validate:
            from fn._ops.check_ops import assert_non_negative

            assert_non_negative(lengths, message="Arguments to from_row_lengths do not form a valid RowPartition")
        zero = convert_to_tensor(np.zeros([1], lengths.dtype.as_numpy_dtype))
        return cls._make(values, concat([zero, cumsum(lengths)], 0), validate)

    @classmethod
    def from_value_rowids(
        cls, values: Any, value_rowids: Any, nrows: Any = None, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_value_rowids``: ``values[j]`` goes to row ``value_rowids[j]``."""
        if not isinstance(values, RaggedTensor) and not _core.is_tensor(values):
            values = convert_to_tensor(values)  # TF converts the values first
        ids = _splits_tensor(value_rowids, "value_rowids", _partition_dtype(values, value_rowids))
        dt = ids.dtype
        if nrows is None:
            n_ids = _nvals(ids, dt)
            last = gather(concat([convert_to_tensor(np.array([-1], dt.as_numpy_dtype)), ids], 0), n_ids)
            nrows = last + 1
        else:
            nrows = cast(nrows if _core.is_tensor(nrows) else convert_to_tensor(nrows, dt), dt)
            _check_static_nrows(ids, nrows)
        if validate:
            from fn._ops.check_ops import assert_non_negative

            msg = "Arguments to from_value_rowids do not form a valid RowPartition"
            assert_non_negative(ids[:1], message=msg)
            assert_non_negative(ids[1:] - ids[:-1], message=msg)
        n_ids, n_values = ids.shape[:1], getattr(values, "shape", TensorShape(None))[:1]
        if not n_ids.is_compatible_with(n_values):  # TF: the partition's static nvals against values
            raise ValueError(f"Shapes {n_values} and {n_ids} are incompatible")
        # Row lengths are counts of each id (scatter_nd sums duplicates), in O(nvals + nrows).

        lengths = scatter_nd(expand_dims(ids, 1), ones_like(ids), expand_dims(nrows, 0))
        zero = convert_to_tensor(np.zeros([1], dt.as_numpy_dtype))
        return cls._make(values, concat([zero, cumsum(lengths)], 0), validate)

    @classmethod
    def from_row_starts(
        cls, values: Any, row_starts: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_row_starts``: row ``i`` starts at ``row_starts[i]``."""
        starts = _splits_tensor(row_starts, "row_starts", _partition_dtype(values, row_starts))
        n = _nvals(_values_tensor(values, starts.dtype), starts.dtype)
        return cls._make(values, concat([starts, expand_dims(n, 0)], 0), validate)

    @classmethod
    def from_row_limits(
        cls, values: Any, row_limits: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_row_limits``: row ``i`` ends at ``row_limits[i]``."""
        limits = _splits_tensor(row_limits, "row_limits", _partition_dtype(values, row_limits))
        zero = convert_to_tensor(np.zeros([1], limits.dtype.as_numpy_dtype))
        return cls._make(values, concat([zero, limits], 0), validate)

    @classmethod
    def from_uniform_row_length(
        cls, values: Any, uniform_row_length: Any, nrows: Any = None, validate: bool = True, name: Optional[str] = None
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_uniform_row_length``: rows of ``uniform_row_length`` values each."""
        dt = values.row_splits.dtype if isinstance(values, RaggedTensor) else int64
        length = cast(convert_to_tensor(uniform_row_length), dt)
        n = _nvals(_values_tensor(values, dt), dt)
        if nrows is None:
            nrows = n // maximum(length, cast(1, dt)) if not _static_int(length) == 0 else cast(0, dt)
        nv, lv, rv = _static_int(n), _static_int(length), _static_int(nrows)
        if validate and nv is not None and lv is not None and rv is not None and lv * rv != nv:
            raise ValueError(f"uniform_row_length={lv} times nrows={rv} must equal nvals={nv}")
        splits = _range(cast(0, dt), cast(nrows, dt) + 1, dtype=dt) * length
        return cls._make(values, splits, validate, uniform_row_length=length)

    @classmethod
    def from_nested_row_splits(
        cls, flat_values: Any, nested_row_splits: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_nested_row_splits``: one ``from_row_splits`` per splits vector."""
        if _core.is_tensor(nested_row_splits):
            shown = nested_row_splits.numpy() if nested_row_splits._is_eager else nested_row_splits
            raise TypeError(f"Argument `nested_row_splits` must be a list of Tensors. Received {shown}.")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(
        cls, flat_values: Any, nested_row_lengths: Any, name: Optional[str] = None, validate: bool = True
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_nested_row_lengths``."""
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(
        cls,
        flat_values: Any,
        nested_value_rowids: Any,
        nested_nrows: Any = None,
        name: Optional[str] = None,
        validate: bool = True,
    ) -> "RaggedTensor":
        """``tf.RaggedTensor.from_nested_value_rowids``."""
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        result = flat_values
        for i, n in reversed(list(zip(ids, nrows))):
            result = cls.from_value_rowids(result, i, n, validate=validate)
        return result

    # from_tensor, from_sparse, merge_dims, to_tensor, to_sparse, __getitem__, __fn_composite__ and
    # _type_spec are implemented by the package's higher modules and set by fn._ragged._methods.

    # ------------------------------------------------------------------ accessors
    @property
    def values(self) -> Any:
        """The concatenated rows (a Tensor or, for ragged rank > 1, a RaggedTensor)."""
        return self._values

    @property
    def row_splits(self) -> Any:
        """The row-split indices (a 1-D int64/int32 tensor of ``nrows + 1`` entries)."""
        return self._row_splits

    @property
    def flat_values(self) -> Any:
        """The innermost values: a Tensor of rank ``rank - ragged_rank``."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        """The row_splits of every ragged dimension, outermost first."""
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        """The number of partitioned (ragged or uniform-row) dimensions."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self) -> Any:
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self) -> Any:
        return self._row_splits.dtype

    @property
    def uniform_row_length(self) -> Any:
        """The length of every row when the partition is uniform, else None."""
        return self._uniform_row_length

    @property
    def shape(self) -> TensorShape:
        """The static shape: ``[nrows, None (or the uniform row length), ...inner dims]``."""
        n = _static_len(self._row_splits)
        inner = self._values.shape
        ul = _static_int(self._uniform_row_length) if self._uniform_row_length is not None else None
        inner_dims = inner.as_list() if inner.rank is not None else None
        if inner_dims is None:
            return TensorShape(None)
        return TensorShape([None if n is None else n - 1, ul] + inner_dims[1:])

    def get_shape(self) -> TensorShape:
        return self.shape

    def _set_shape(self, shape: Any) -> None:
        """TF's ``RaggedTensor._set_shape`` (used where a value meets its spec, e.g. a dataset's
        element): a known size of a ragged dimension becomes that partition's uniform row length."""
        dims = TensorShape(shape).as_list() if TensorShape(shape).rank is not None else None
        rt: Any = self
        for size in (dims or [])[1 : self.ragged_rank + 1]:
            if size is not None and rt._uniform_row_length is None:
                rt._uniform_row_length = convert_to_tensor(np.array(size, rt._row_splits.dtype.as_numpy_dtype))
            rt = rt._values

    @property
    def ndim(self) -> Optional[int]:
        return self.shape.rank

    @property
    def device(self) -> str:
        return self.flat_values.device

    def _is_eager(self) -> bool:
        return _eager(self)

    def row_lengths(self, axis: int = 1, name: Optional[str] = None) -> Any:
        """``RaggedTensor.row_lengths``: the length of each row (``axis=1``) or of deeper rows."""
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis < 0:
            raise ValueError("axis may not be negative for RaggedTensor.row_lengths")
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        rank = known_rank(self.shape)
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")

    def value_rowids(self, name: Optional[str] = None) -> Any:
        """``RaggedTensor.value_rowids``: the row index of each value."""
        return rowids_from_splits(self._row_splits)

    def nested_row_lengths(self, name: Optional[str] = None) -> tuple:
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt._values
        return tuple(out)

    def nested_value_rowids(self, name: Optional[str] = None) -> tuple:
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def nrows(self, out_type: Any = None, name: Optional[str] = None) -> Any:
        """``RaggedTensor.nrows``: the number of rows, a scalar of ``out_type`` (the splits' dtype)."""
        out_type = self._row_splits.dtype if out_type is None else as_dtype(out_type)
        n = _static_len(self._row_splits)
        if n is not None:
            return convert_to_tensor(np.array(n - 1, out_type.as_numpy_dtype))
        return cast(_shape(self._row_splits, out_type=int64)[0] - 1, out_type)

    def row_starts(self, name: Optional[str] = None) -> Any:
        return self._row_splits[:-1]

    def row_limits(self, name: Optional[str] = None) -> Any:
        return self._row_splits[1:]

    def bounding_shape(self, axis: Any = None, name: Optional[str] = None, out_type: Any = None) -> Any:
        """``RaggedTensor.bounding_shape``: the smallest dense shape holding every row."""
        out_type = self._row_splits.dtype if out_type is None else as_dtype(out_type)
        dims = [self.nrows(out_type)]
        rt: Any = self
        while isinstance(rt, RaggedTensor):
            lengths = rt.row_lengths()
            width = reduce_max(concat([cast(lengths, out_type), cast(convert_to_tensor([0]), out_type)], 0))
            dims.append(width)
            rt = rt._values
        inner = _shape(rt, out_type=out_type)[1:]
        result = concat([stack(dims), inner], 0)
        if axis is None:
            return result
        rank = self.shape.rank
        if isinstance(axis, int) and rank is not None and not 0 <= axis < rank:
            raise InvalidArgumentError(None, None, f"indices = {axis} is not in [0, {rank}) [Op:GatherV2]")
        return gather(result, axis)

    # ------------------------------------------------------------------ transforms
    def _fn_parts(self) -> "RaggedParts":
        """Its component tensors as one parts object (``fn._tensor.composite``)."""
        return RaggedParts(self.ragged_rank, (self.flat_values,) + tuple(self.nested_row_splits))

    def with_values(self, new_values: Any) -> "RaggedTensor":
        """``RaggedTensor.with_values``: the same outer partition over ``new_values``."""
        new_values = _values_tensor(new_values, self._row_splits.dtype)
        old_n, new_n = _static_len(self._values), _static_len(new_values)
        if old_n is not None and new_n is not None and old_n != new_n:
            raise ValueError(f"Shapes ({old_n},) and ({new_n},) are incompatible")
        return RaggedTensor(new_values, self._row_splits, internal=True, uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values: Any) -> "RaggedTensor":
        """``RaggedTensor.with_flat_values``: the same nested partitions over ``new_values``."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype: Any) -> "RaggedTensor":
        dtype = as_dtype(dtype)
        if dtype not in (int32, int64):
            raise ValueError(f"dtype must be int32 or int64; got {dtype}")
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) else self._values
        ul = None if self._uniform_row_length is None else cast(self._uniform_row_length, dtype)
        return RaggedTensor(values, cast(self._row_splits, dtype), internal=True, uniform_row_length=ul)

    # ------------------------------------------------------------------ eager values
    def numpy(self) -> np.ndarray:
        """``RaggedTensor.numpy``: ragged rows as a 1-D object array of arrays (TF's layout)."""
        if not self._is_eager():
            raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
        values = self._values.numpy()
        splits = self._row_splits.numpy()
        rows = [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        has_variable_length_rows = any(len(row) != len(rows[0]) for row in rows)
        dtype = np.object_ if has_variable_length_rows else None
        return np.array(rows, dtype=dtype)

    def to_list(self) -> list:
        """``RaggedTensor.to_list``: a nested Python list of the values."""
        if not self._is_eager():
            raise ValueError(
                "RaggedTensor.to_list() is only supported in eager mode; in graph mode, "
                "evaluate the RaggedTensor first and then use RaggedTensorValue.to_list()."
            )
        splits = self._row_splits.numpy().tolist()
        values = self._values
        if isinstance(values, RaggedTensor):
            inner = values.to_list()
        else:
            inner = values.numpy().tolist()
        return [inner[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def __repr__(self) -> str:
        if self._is_eager():
            with np.printoptions(formatter={"all": _formatter}):
                value_text = _formatter(self.numpy())
            return f"<fn.RaggedTensor {value_text}>"
        return "fn.RaggedTensor(values=%s, row_splits=%s)" % (self._values, self._row_splits)

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __iter__(self) -> Any:
        if not self._is_eager():
            raise ValueError("RaggedTensor.__iter__() is only supported in eager mode.")
        return (self[i] for i in range(int(self.nrows().numpy())))

    # ------------------------------------------------------------------ fn.function
    def consumers(self) -> list:
        return []


class RaggedParts:
    """A RaggedTensor as (ragged_rank, [flat_values, *nested_row_splits]): the parts object of
    ``fn._tensor.composite`` (RaggedTensors cross ``cond`` and ``while_loop`` as their components)."""

    def __init__(self, ragged_rank: int, components: tuple) -> None:
        self.ragged_rank = ragged_rank
        self.components = tuple(components)

    def __tf_flatten__(self) -> tuple:
        return self.ragged_rank, self.components

    @classmethod
    def __tf_unflatten__(cls, metadata: int, components: tuple) -> "RaggedParts":
        return cls(metadata, components)

    def _fn_value(self) -> RaggedTensor:
        return RaggedTensor.from_nested_row_splits(self.components[0], list(self.components[1:]), validate=False)

    def _fn_loop_invariants(self) -> "RaggedParts":
        # The flat values and inner splits may change length between iterations (as TF relaxes
        # them to its RaggedTensorSpec's components); the outer splits keep their shape.
        flat, outer, *inner = self.components
        dims = flat.shape.as_list() if flat.shape.rank is not None else None
        shapes = [TensorShape(None if dims is None else [None] + dims[1:]), outer.shape]
        shapes += [TensorShape([None]) for _ in inner]
        return RaggedParts(self.ragged_rank, tuple(shapes))


def rowids_from_splits(splits: Any) -> Any:
    """The row of each value: a cumulative count of the row starts at or before it, O(nvals +
    nrows) (``tf.repeat`` of the row numbers would build an nrows x max-length mask)."""

    nvals = splits[-1]
    starts = splits[1:-1]
    marks = scatter_nd(expand_dims(starts, 1), ones_like(starts), expand_dims(nvals + 1, 0))
    return cumsum(marks[:-1])


def _eager(x: Any) -> bool:
    if isinstance(x, RaggedTensor):
        return x._row_splits._is_eager and _eager(x._values)
    return bool(getattr(x, "_is_eager", False))


def _static_int(t: Any) -> Optional[int]:
    if t is None:
        return None
    if isinstance(t, (int, np.integer)):
        return int(t)
    if getattr(t, "_is_eager", False):
        return int(t.numpy())
    return None


def _partition_dtype(values: Any, partition: Any) -> Any:
    """Splits built from a Python list take the dtype of a ragged ``values``' splits."""
    if isinstance(values, RaggedTensor) and not _core.is_tensor(partition):
        return values.row_splits.dtype
    return None


def _formatter(x: Any) -> str:
    """Separates NumPy array elements with commas (TF's ``_formatter``)."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)
