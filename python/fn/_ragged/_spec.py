"""``tf.RaggedTensorSpec``: the trace type of a RaggedTensor argument (shape with None dims,
dtype, ragged_rank, row_splits_dtype), as fn.function keys its cache."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import as_dtype, int64
from fn.types.experimental import TraceType
from fn._ragged._ragged_tensor import RaggedTensor


class RaggedTensorSpec(TraceType):
    """``tf.RaggedTensorSpec(shape, dtype, ragged_rank, row_splits_dtype, flat_values_spec)``."""

    # fn.function makes a RaggedTensor argument's placeholders from this spec's components
    # (flat values and inner splits of unknown length), not from the first call's exact sizes.
    _fn_trace_from_spec = True

    def __init__(
        self,
        shape: Any = None,
        dtype: Any = "float32",
        ragged_rank: Optional[int] = None,
        row_splits_dtype: Any = int64,
        flat_values_spec: Any = None,
    ) -> None:
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = as_dtype(dtype)
        self._row_splits_dtype = as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec
        if flat_values_spec is not None:
            self._dtype = flat_values_spec.dtype
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
        if rank is not None:
            if ragged_rank >= rank:
                raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")
        self._ragged_rank = ragged_rank

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> Any:
        return self._row_splits_dtype

    @property
    def flat_values_spec(self) -> Any:
        return self._flat_values_spec

    @property
    def value_type(self) -> type:
        return RaggedTensor if self._ragged_rank > 0 else type(None)

    @classmethod
    def from_value(cls, value: Any) -> "RaggedTensorSpec":
        """``tf.RaggedTensorSpec.from_value``: the spec of a RaggedTensor (or Tensor)."""
        if isinstance(value, RaggedTensor):
            return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)
        return cls(value.shape, value.dtype, 0)

    # -- components
    def _component_specs(self) -> List[TensorSpec]:
        """flat_values, then one row_splits per ragged dimension (TF's order: outermost first);
        a spec of ragged_rank 0 is a plain tensor's."""
        if self._ragged_rank == 0:
            return [TensorSpec(self._shape, self._dtype)]
        dims = self._shape.as_list() if self._shape.rank is not None else None
        if dims is None:
            flat = TensorSpec(None, self._dtype)
            outer = None
        else:
            flat = TensorSpec([None] + dims[self._ragged_rank + 1 :], self._dtype)
            outer = None if dims[0] is None else dims[0] + 1
        splits = [TensorSpec([outer], self._row_splits_dtype)]
        splits += [TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]
        return [flat] + splits

    def _fn_from_components(self, components: Sequence[Any]) -> Any:
        if self._ragged_rank == 0:
            return components[0]
        return RaggedTensor.from_nested_row_splits(components[0], list(components[1:]), validate=False)

    def __fn_composite__(self) -> tuple:
        return self, self._component_specs()

    # -- TraceType
    def _key(self) -> tuple:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def is_subtype_of(self, other: Any) -> bool:
        return (
            type(other) is type(self)
            and self._dtype == other._dtype
            and self._ragged_rank == other._ragged_rank
            and self._row_splits_dtype == other._row_splits_dtype
            and self._shape.is_subtype_of(other._shape)
        )

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional["RaggedTensorSpec"]:
        shape = self._shape
        for o in others:
            if (
                type(o) is not type(self)
                or o._dtype != self._dtype
                or o._ragged_rank != self._ragged_rank
                or o._row_splits_dtype != self._row_splits_dtype
            ):
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def placeholder_value(self, placeholder_context: Any = None) -> Any:
        raise NotImplementedError("RaggedTensorSpec.placeholder_value")

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        if isinstance(spec_or_value, RaggedTensor):
            spec_or_value = RaggedTensorSpec.from_value(spec_or_value)
        if type(spec_or_value) is not type(self):
            return False
        o = spec_or_value
        return (
            self._dtype == o._dtype
            and self._ragged_rank == o._ragged_rank
            and self._row_splits_dtype == o._row_splits_dtype
            and self._shape.is_compatible_with(o._shape)
        )

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(
            (
                tuple(self._shape.as_list()) if self._shape.rank is not None else None,
                self._dtype.name,
                self._ragged_rank,
                self._row_splits_dtype.name,
            )
        )

    def __repr__(self) -> str:
        return (
            f"RaggedTensorSpec({self._shape!r}, fn.{self._dtype.name}, {self._ragged_rank}, "
            f"fn.{self._row_splits_dtype.name})"
        )
