"""Python-side behaviour of ``fn.Tensor`` (the symbolic base class) and ``EagerTensor``:
printing as TensorFlow prints, Python number protocols, iteration. The classes live in C++."""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from fn import _core
from fn import errors
from fn._tensor.tensor_shape import TensorShape

Tensor = _core.Tensor
EagerTensor = _core.EagerTensor


def _numpy_text(t: Any, is_repr: bool = False) -> str:
    if not t.dtype.is_numpy_compatible:
        return "<unprintable>"
    value = t.numpy()
    if t._rank == 0:
        # TensorFlow 2.21 reprs a scalar as its Python value (float32 1.1 -> 1.100000023841858)
        # and prints it with NumPy's str (1.1).
        if is_repr:
            text = repr(value.item() if isinstance(value, np.generic) else value)
        else:
            text = str(value)
    else:
        text = repr(value) if is_repr else str(value)
    if "\n" in text:
        text = "\n" + text
    return text


def _eager_str(self: Any) -> str:
    return "fn.Tensor(%s, shape=%s, dtype=%s)" % (_numpy_text(self), self.shape, self.dtype.name)


def _eager_repr(self: Any) -> str:
    return "<fn.Tensor: shape=%s, dtype=%s, numpy=%s>" % (self.shape, self.dtype.name, _numpy_text(self, True))


def _graph_str(self: Any) -> str:
    if self._rank < 0:  # TensorFlow leaves the shape out when even the rank is unknown
        return 'Tensor("%s", dtype=%s)' % (self.name, self.dtype.name)
    return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype.name)


def _graph_repr(self: Any) -> str:
    return "<fn.Tensor '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)


def _graph_bool(self: Any) -> bool:
    raise errors.OperatorNotAllowedInGraphError(
        "Using a symbolic `fn.Tensor` as a Python `bool` is not allowed. You can attempt the "
        "following resolutions to the problem: If you are running in Graph mode, use Eager "
        "execution mode or decorate this function with @fn.function. If you are using AutoGraph, "
        "you can try decorating this function with @fn.function. If that does not work, then you "
        "may be using an unsupported feature or your source code may not be visible to AutoGraph."
    )


def _graph_iter(self: Any) -> Iterator[Any]:
    shape = self.shape
    if shape.rank is None or shape.rank == 0:
        raise TypeError(
            "Cannot iterate over a scalar tensor."
            if shape.rank == 0
            else "Cannot iterate over a tensor with unknown shape."
        )
    if shape[0] is None:
        raise errors.OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `fn.Tensor` is not allowed. You can attempt the following "
            "resolutions to the problem: use a fn.function-decorated loop over fn.range, or "
            "give the first dimension a static size."
        )
    return (self[i] for i in range(shape[0]))


def _graph_len(self: Any) -> int:
    shape = self.shape
    if shape.rank == 0:
        raise TypeError("Scalar tensor has no `len()`")
    if shape.rank is None or shape[0] is None:
        raise TypeError(
            "len is not well defined for a symbolic Tensor. Please call `x.shape` rather than `len(x)` for shape information."
        )
    return shape[0]


def _scalar(self: Any, kind: type) -> Any:
    if self._rank != 0:
        if self.shape.num_elements() == 1:
            return kind(self.numpy().reshape(()))
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    return kind(self.numpy())


def _eager_bool(self: Any) -> bool:
    """TF's EagerTensor truth value: False when empty, NumPy's ValueError past one element."""
    if self.shape.num_elements() == 0:
        return False
    return bool(self.numpy())


def _eager_len(self: Any) -> int:
    if self._rank == 0:
        raise TypeError("Scalar tensor has no `len()`")
    return self._shape_tuple[0]


def _eager_iter(self: Any) -> Iterator[Any]:
    if self._rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    return (self[i] for i in range(self._shape_tuple[0]))


def _eager_index(self: Any) -> int:
    if not self.dtype.is_integer or self._rank != 0:
        raise TypeError("Only integer scalar tensors can be used as an index, got %s" % self.dtype.name)
    return int(self.numpy())


def _eager_array(self: Any, dtype: Any = None, copy: Any = None) -> np.ndarray:
    a = np.asarray(self.numpy())
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    if copy:
        a = a.copy()
    return a


def _set_shape(self: Any, shape: Any) -> None:
    """``tf.Tensor.set_shape``: an eager tensor only checks that ``shape`` is compatible; a
    symbolic one takes the merge of its static shape and ``shape`` (TF's ValueErrors on a
    conflict)."""

    given = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    mine = self.shape
    if self._is_eager:
        if not mine.is_compatible_with(given):
            raise ValueError(f"Tensor's shape {mine} is not compatible with supplied shape {given}.")
        return
    if given.rank is None:
        return
    if mine.rank is not None:
        if mine.rank != given.rank:
            raise ValueError(f"Shapes must be equal rank, but are {mine.rank} and {given.rank}")
        for i, (a, b) in enumerate(zip(mine.as_list(), given.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError(
                    f"Dimension {i} in both shapes must be equal, but are {a} and {b}. "
                    f"Shapes are {_debug_shape(mine)} and {_debug_shape(given)}."
                )
    merged = mine.merge_with(given)
    if merged != mine or mine.rank is None:
        self._refine_shape(merged)


def _debug_shape(shape: Any) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _ref(self: Any) -> "Reference":
    return Reference(self)


class Reference:
    """A hashable reference to a tensor (``Tensor.ref()``); compares by identity."""

    __slots__ = ("_t",)

    def __init__(self, t: Any) -> None:
        self._t = t

    def deref(self) -> Any:
        return self._t

    def __hash__(self) -> int:
        return id(self._t)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._t is self._t
