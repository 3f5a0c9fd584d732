"""``tf.SparseTensor`` and ``tf.SparseTensorSpec``: a composite of three tensors (indices int64
[N, rank], values [N], dense_shape int64 [rank]) that ``fn.function`` traces as three inputs
(the ``__fn_composite__`` protocol of ``_function_args.py``)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, convert_to_tensor
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import as_dtype, int64
from fn.types.experimental import TraceType
from fn._ops.array_ops import stack


def _static_shape(dense_shape: Any, given: Any) -> TensorShape:
    """The static shape: the dense_shape's value when it is known (eager, or a Python value), with
    -1 an unknown dim as TF's ``constant_value_as_shape`` reads it (the kernels refuse it later)."""

    def dims(v: Any) -> TensorShape:
        return TensorShape([None if int(d) == -1 else int(d) for d in np.asarray(v).reshape(-1).tolist()])

    if not _core.is_tensor(given) and not isinstance(given, TensorShape):
        try:
            return dims(given)
        except (TypeError, ValueError):
            pass
    if hasattr(dense_shape, "numpy"):
        return dims(dense_shape.numpy())
    rank = dense_shape.shape[0] if dense_shape.shape.rank == 1 else None
    return TensorShape(None if rank is None else [None] * rank)


class SparseTensor:
    """``tf.sparse.SparseTensor``: ``values[i]`` sits at ``indices[i]`` of a ``dense_shape``
    tensor whose other elements are zero."""

    _fn_is_sparse = True  # tf.shape and other ops that take a SparseTensor look for this

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        indices = _int64(indices)
        values = values if _core.is_tensor(values) else convert_to_tensor(values)
        given = dense_shape
        dense_shape = _int64(dense_shape)
        ishape, vshape, sshape = indices.shape, values.shape, dense_shape.shape
        ishape.with_rank(2)
        vshape.with_rank(1)
        sshape.with_rank(1)
        # indices [N, rank], values [N], dense_shape [rank] (TF's static checks).
        _merge_dim(ishape, 0, vshape, 0)
        _merge_dim(ishape, 1, sshape, 0)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._shape = _static_shape(dense_shape, given)

    @classmethod
    def from_value(cls, value: Any) -> "SparseTensor":
        """``SparseTensor.from_value``: a SparseTensor passes through."""
        if isinstance(value, SparseTensor):
            return value
        raise TypeError(f"Expected SparseTensor, got {value!r}")

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def values(self) -> Any:
        return self._values

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(TensorShape(shape))

    @property
    def graph(self) -> Any:
        return getattr(self._values, "graph", None)

    def _numpy(self) -> np.ndarray:
        """TF's ``SparseTensor._numpy`` (what ``Dataset.as_numpy_iterator`` yields): the dense array."""
        if not all(getattr(t, "_is_eager", False) for t in (self._indices, self._values, self._dense_shape)):
            raise ValueError("SparseTensor.numpy() is only supported in eager mode.")
        arr = np.zeros(self._dense_shape.numpy(), dtype=self.dtype.as_numpy_dtype)
        for i, v in zip(self._indices.numpy(), self._values.numpy()):
            arr[tuple(i)] = v
        return arr

    def with_values(self, new_values: Any) -> "SparseTensor":
        """``SparseTensor.with_values``: the same indices and shape with other values."""
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._shape = self._shape
        return out

    def _fn_cast_values(self, cast_values: Any) -> "SparseTensor":
        """tf.cast of a SparseTensor: its values cast."""
        return self.with_values(cast_values(self._values))

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={str(self._indices)}, values={str(self._values)}, "
            f"dense_shape={str(self._dense_shape)})"
        )

    __str__ = __repr__

    # fn's composite protocol: the trace type and the three component tensors.
    def __fn_composite__(self) -> tuple:
        return SparseTensorSpec(self._shape, self.dtype), [self._indices, self._values, self._dense_shape]

    def __tf_tracing_type__(self, context: Any = None) -> "SparseTensorSpec":
        return SparseTensorSpec(self._shape, self.dtype)

    # _fn_unary_dispatch, __mul__ and __truediv__ are set by fn._sparse.sparse_ops.install_operators().


def _merge_dim(a: TensorShape, i: int, b: TensorShape, j: int) -> None:
    x = a.as_list()[i] if a.rank is not None else None
    y = b.as_list()[j] if b.rank is not None else None
    if x is not None and y is not None and x != y:
        raise ValueError(f"Dimensions {x} and {y} are not compatible")


def _int64(v: Any) -> Any:
    if _core.is_tensor(v):
        if v.dtype != int64:
            return cast(v, int64)
        return v
    if isinstance(v, TensorShape):
        v = v.as_list()
    if isinstance(v, (list, tuple)) and any(_core.is_tensor(d) for d in v):
        # TF packs a shape holding tensors of another integer dtype ((tf.shape(x)[0], 4)) as int64

        return stack([cast(d, int64) if _core.is_tensor(d) else convert_to_tensor(d, int64) for d in v])
    return convert_to_tensor(v, int64)


class SparseTensorSpec(TraceType):
    """``tf.SparseTensorSpec``: a SparseTensor's dense shape (possibly partial) and dtype."""

    def __init__(self, shape: Any = None, dtype: Any = "float32") -> None:
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = as_dtype(dtype)

    @classmethod
    def from_value(cls, value: SparseTensor) -> "SparseTensorSpec":
        return cls(value.shape, value.dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def value_type(self) -> type:
        return SparseTensor

    def _key(self) -> tuple:
        dims = None if self._shape.rank is None else tuple(self._shape.as_list())
        return (dims, self._dtype.name)

    def is_subtype_of(self, other: Any) -> bool:
        return (
            type(other) is SparseTensorSpec
            and self._dtype == other._dtype
            and other._shape.is_compatible_with(self._shape)
            and _more_specific(self._shape, other._shape)
        )

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, SparseTensor):
            other = SparseTensorSpec.from_value(other)
        return (
            isinstance(other, SparseTensorSpec)
            and self._dtype == other._dtype
            and self._shape.is_compatible_with(other._shape)
        )

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional["SparseTensorSpec"]:
        shape = self._shape
        for o in others:
            if type(o) is not SparseTensorSpec or o._dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return SparseTensorSpec(shape, self._dtype)

    def __eq__(self, other: Any) -> bool:
        return type(other) is SparseTensorSpec and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(("SparseTensorSpec",) + self._key())

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"

    def _component_specs(self) -> List[TensorSpec]:
        rank = self._shape.rank
        return [TensorSpec([None, rank], int64), TensorSpec([None], self._dtype), TensorSpec([rank], int64)]

    # As an input_signature entry or a traced argument: three TensorSpec components.
    def __fn_composite__(self) -> tuple:
        return self, self._component_specs()

    def _fn_from_components(self, components: List[Any]) -> SparseTensor:
        out = SparseTensor(*components)
        out._shape = out._shape.merge_with(self._shape) if out._shape.rank is not None else self._shape
        return out


def _more_specific(a: TensorShape, b: TensorShape) -> bool:
    if b.rank is None:
        return True
    if a.rank is None or a.rank != b.rank:
        return False
    return all(y is None or x == y for x, y in zip(a.as_list(), b.as_list()))
