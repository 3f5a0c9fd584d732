"""Every Python-level method of ``fn.Tensor`` and ``fn.EagerTensor``, installed in one place.

The classes live in C++ (``fn._core``), with the arithmetic and comparison operators; what Python
adds is set here by ``install()``, which ``fn/__init__.py`` calls once: printing and the Python
number and sequence protocols (``fn._tensor.tensor``), the operators that pick an op by dtype
(``fn._ops.math_ops``), indexing (``fn._ops.slicing``), ``device`` (``fn._runtime.device``) and
``op`` (``fn._function.operation``).
"""

from __future__ import annotations

from typing import Any

from fn import _core
from fn._function.operation import _tensor_op
from fn._ops import math_ops, slicing
from fn._runtime import device
from fn._tensor import tensor as _t


def _install_printing_and_protocols(T: Any, E: Any) -> None:
    T.__str__ = _t._graph_str
    T.__repr__ = _t._graph_repr
    T.__bool__ = _t._graph_bool
    T.__iter__ = _t._graph_iter
    T.__len__ = _t._graph_len
    T.ref = _t._ref
    T.get_shape = lambda self: self.shape
    T.set_shape = _t._set_shape
    T.__array_priority__ = 100
    T.__module__ = "fn"
    E.__str__ = _t._eager_str
    E.__repr__ = _t._eager_repr
    E.__bool__ = _t._eager_bool
    E.__int__ = lambda self: _t._scalar(self, int)
    E.__float__ = lambda self: _t._scalar(self, float)
    E.__index__ = _t._eager_index
    E.__len__ = _t._eager_len
    E.__iter__ = _t._eager_iter
    E.__array__ = _t._eager_array
    E.__copy__ = lambda self: self
    E.__format__ = lambda self, spec: self.numpy().__format__(spec)  # as TF: the value's
    E.__deepcopy__ = lambda self, memo: self


def _install_operators(T: Any) -> None:
    T.__matmul__ = lambda a, b: math_ops.matmul(a, b)
    T.__rmatmul__ = lambda a, b: math_ops.matmul(b, a)
    for name, bool_op, int_op in (
        ("and", "LogicalAnd", "BitwiseAnd"),
        ("or", "LogicalOr", "BitwiseOr"),
        ("xor", "xor", "BitwiseXor"),
    ):
        setattr(T, f"__{name}__", math_ops._logic_operator(bool_op, int_op, name, False))
        setattr(T, f"__r{name}__", math_ops._logic_operator(bool_op, int_op, name, True))
    T.__invert__ = math_ops._invert


def install() -> None:
    """Sets the Python methods on the C++ tensor classes (idempotent)."""
    _install_printing_and_protocols(_core.Tensor, _core.EagerTensor)
    _install_operators(_core.Tensor)
    _core.Tensor.__getitem__ = slicing.getitem
    _core.Tensor.device = property(device._tensor_device)
    _core.Tensor.op = property(_tensor_op)
