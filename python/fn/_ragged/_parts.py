"""RaggedTensors crossing ``fn.cond``: branch outputs carry them as ``RaggedParts`` (a custom
nest node of their component tensors, TF's ``__tf_flatten__`` protocol), so the If node sees
plain tensors; the result is rebuilt as RaggedTensors."""
from __future__ import annotations

from typing import Any

from fn._ragged._ragged_tensor import RaggedTensor


class RaggedParts:
    """A RaggedTensor as (ragged_rank, [flat_values, *nested_row_splits])."""

    def __init__(self, ragged_rank: int, components: tuple) -> None:
        self.ragged_rank = ragged_rank
        self.components = tuple(components)

    def __tf_flatten__(self) -> tuple:
        return self.ragged_rank, self.components

    @classmethod
    def __tf_unflatten__(cls, metadata: int, components: tuple) -> "RaggedParts":
        return cls(metadata, components)

    def value(self) -> RaggedTensor:
        return RaggedTensor.from_nested_row_splits(self.components[0], list(self.components[1:]), validate=False)


def to_parts(structure: Any) -> Any:
    """``structure`` with each RaggedTensor replaced by its RaggedParts."""
    if isinstance(structure, RaggedTensor):
        return RaggedParts(structure.ragged_rank, (structure.flat_values,) + tuple(structure.nested_row_splits))
    if isinstance(structure, list):
        return [to_parts(v) for v in structure]
    if isinstance(structure, tuple):
        items = [to_parts(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if type(structure) is dict:
        return {k: to_parts(v) for k, v in structure.items()}
    return structure


def from_parts(structure: Any) -> Any:
    """The inverse of ``to_parts``."""
    if isinstance(structure, RaggedParts):
        return structure.value()
    if isinstance(structure, list):
        return [from_parts(v) for v in structure]
    if isinstance(structure, tuple):
        items = [from_parts(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if type(structure) is dict:
        return {k: from_parts(v) for k, v in structure.items()}
    return structure


def has_ragged(structure: Any) -> bool:
    if isinstance(structure, RaggedTensor):
        return True
    if isinstance(structure, (list, tuple)):
        return any(has_ragged(v) for v in structure)
    if type(structure) is dict:
        return any(has_ragged(v) for v in structure.values())
    return False


def loop_invariants(parts: Any) -> Any:
    """Shape invariants for loop vars holding RaggedParts: a RaggedTensor's flat values and inner
    splits may change length between iterations (as TF relaxes them to its RaggedTensorSpec's
    components); other loop vars keep their shapes (None: no invariant)."""
    from fn._tensor.tensor_shape import TensorShape
    if isinstance(parts, RaggedParts):
        flat, outer, *inner = parts.components
        dims = flat.shape.as_list() if flat.shape.rank is not None else None
        shapes = [TensorShape(None if dims is None else [None] + dims[1:]), outer.shape]
        shapes += [TensorShape([None]) for _ in inner]
        return RaggedParts(parts.ragged_rank, tuple(shapes))
    if isinstance(parts, (list, tuple)) and not hasattr(parts, "_fields"):
        return type(parts)(loop_invariants(v) for v in parts)
    if isinstance(parts, tuple):
        return type(parts)(*[loop_invariants(v) for v in parts])
    if type(parts) is dict:
        return {k: loop_invariants(v) for k, v in parts.items()}
    return None
