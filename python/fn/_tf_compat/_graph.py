"""Graphs built outside ``tf.function``: ``tf.__internal__.FuncGraph(name).as_default()`` and the
``tf.compat.v1.placeholder`` made in it. Keras traces a layer's ``call`` on placeholders in such a
scratch graph to learn its output shapes and dtypes (``compute_output_spec``)."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, List, Optional

from fn import _core
from fn._ops import array_ops as _array_ops
from fn._sparse import sparse_tensor as _sparse_tensor
from fn import dtypes as _dtypes
from fn.dtypes import as_dtype
from fn._tensor.tensor_shape import TensorShape

_local = threading.local()


def _stack() -> List["FuncGraph"]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


class FuncGraph:
    """A graph to build ops into (TF's ``FuncGraph``): ops called inside ``as_default()`` add
    symbolic nodes here instead of running."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._graph = _core.Graph(name)
        self._builder = _core.GraphBuilder(self._graph)
        self._placeholder_count = 0

    @contextlib.contextmanager
    def as_default(self) -> Iterator["FuncGraph"]:
        _stack().append(self)
        try:
            with _core.ContextScope(self._builder):
                yield self
        finally:
            _stack().pop()

    def _placeholder(self, dtype: Any, shape: Any, name: Optional[str]) -> Any:
        if name is None:
            name = "Placeholder" if not self._placeholder_count else f"Placeholder_{self._placeholder_count}"
        self._placeholder_count += 1
        return self._builder.add_placeholder(name, dtype, shape)

    def __repr__(self) -> str:
        return f"<fn.FuncGraph {self.name!r}>"


def _current(what: str) -> FuncGraph:
    stack = _stack()
    if not stack or _core.executing_eagerly():
        raise RuntimeError(f"{what}() is not compatible with eager execution.")
    return stack[-1]


def placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None) -> Any:
    """``tf.compat.v1.placeholder``: a symbolic input of the graph being built."""

    return _current("tf.placeholder")._placeholder(as_dtype(dtype), TensorShape(shape), name)


def sparse_placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None) -> Any:
    """``tf.compat.v1.sparse_placeholder``: a SparseTensor of placeholders (indices, values, shape)."""

    graph = _current("tf.sparse_placeholder")
    shape = TensorShape(shape)
    rank = shape.rank
    indices = graph._placeholder(_dtypes.int64, TensorShape([None, rank]), None)
    values = graph._placeholder(as_dtype(dtype), TensorShape([None]), None)
    if shape.is_fully_defined():
        dense_shape = _array_ops.constant(shape.as_list(), _dtypes.int64)
    else:
        dense_shape = graph._placeholder(_dtypes.int64, TensorShape([rank]), None)
    st = _sparse_tensor.SparseTensor(indices, values, dense_shape)
    st.set_shape(shape)  # TF keeps the placeholder's static shape on the SparseTensor
    return st
