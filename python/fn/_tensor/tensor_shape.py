"""``fn.TensorShape``: TensorFlow's partial shapes (unknown rank, unknown dims)."""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence, Union, cast
from fn import _core


class TensorShape:
    """A possibly partial shape, like ``tf.TensorShape``: ``None`` rank or ``None`` dims are unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if dims is None:
            self._dims: Optional[tuple] = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, int):
            self._dims = (dims,)
        elif type(dims).__name__ == "TensorShapeProto" and hasattr(dims, "unknown_rank"):
            # TF's TensorShapeProto (fn's or TF's own class): -1 is an unknown dimension
            self._dims = None if dims.unknown_rank else tuple(None if d.size == -1 else int(d.size) for d in dims.dim)
        else:
            try:
                items = list(dims)
            except TypeError:
                raise TypeError(f"Cannot convert {dims!r} to a TensorShape") from None
            out: List[Optional[int]] = []
            for d in items:
                if d is None:
                    out.append(None)
                    continue
                d = getattr(d, "value", d) if not isinstance(d, int) else d
                if d is None:
                    out.append(None)
                    continue
                try:
                    v = int(d)
                except (TypeError, ValueError):
                    raise TypeError(f"Dimension value must be integer or None, got {d!r}") from None
                if v < 0:
                    raise ValueError(f"Dimension {v} must be >= 0")
                out.append(v)
            self._dims = tuple(out)

    @property
    def rank(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> Optional[int]:
        return self.rank

    @property
    def dims(self) -> Optional[List[Optional[int]]]:
        return None if self._dims is None else list(self._dims)

    def as_proto(self) -> Any:
        """``tf.TensorShape.as_proto``: the shape as a ``TensorShapeProto`` (-1 for unknown dims)."""
        from fn._tensor.tensor_shape_pb import TensorShapeProto  # protobuf only when asked for

        if self._dims is None:
            return TensorShapeProto(unknown_rank=True)
        return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in self._dims])

    def as_list(self) -> List[Optional[int]]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def _as_array(self) -> Any:
        """The dims as a NumPy int32 (int64 if needed) vector, for conversion to a tensor."""
        import numpy as np

        if not self.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {self._text()} to a Tensor.")
        dims = self._known_dims()
        big = any(d > 2**31 - 1 for d in dims)
        return np.asarray(dims, dtype=np.int64 if big else np.int32).reshape([len(dims)])

    def _text(self) -> str:
        if self._dims is None:
            return "<unknown>"
        return (
            "("
            + ", ".join("None" if d is None else str(d) for d in self._dims)
            + ("," if len(self._dims) == 1 else "")
            + ")"
        )

    def __fn_tensor__(self, dtype: Any = None) -> Any:
        """``tf.convert_to_tensor(shape)``: a fully defined shape becomes its dims (int32)."""

        return _core.convert_to_tensor(self._as_array(), dtype, None)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def _known_dims(self) -> Sequence[int]:
        """The dims of a fully defined shape (callers check ``is_fully_defined`` first)."""
        return cast(Sequence[int], self._dims)

    def num_elements(self) -> Optional[int]:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._known_dims():
            n *= d
        return n

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def is_subtype_of(self, other: Any) -> bool:
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def merge_with(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def concatenate(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __add__(self, other: Any) -> "TensorShape":
        """``shape + other``: TF's TensorShape concatenates (a tuple or list converts)."""
        return self.concatenate(other)

    def __radd__(self, other: Any) -> "TensorShape":
        """``other + shape`` with a tuple or list on the left: the concatenation."""
        if not isinstance(other, TensorShape):
            other = as_shape(other)
        return other.concatenate(self)

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        """This shape, or ValueError if its rank is known and below ``rank`` (TF's message)."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        """This shape, or ValueError if its rank is known and above ``rank``."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Optional[int]]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Union[int, slice]) -> Any:
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: object) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return "(" + inner + ("," if len(self._dims) == 1 else "") + ")"

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([" + ", ".join("None" if d is None else str(d) for d in self._dims) + "])"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(shape: Any) -> TensorShape:
    """Converts to a TensorShape (``tf.TensorShape(x)`` when not one already)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: Optional[int] = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)


def known_rank(shape: TensorShape, what: str = "the tensor") -> int:
    """``shape.rank`` where an operation needs it: a ValueError (TF's class for a static shape
    check) when the rank is unknown."""
    if shape.rank is None:
        raise ValueError(f"The rank of {what} must be known, but its shape is {shape}.")
    return shape.rank
