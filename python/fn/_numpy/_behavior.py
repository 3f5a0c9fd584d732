"""``tnp.experimental_enable_numpy_behavior``: NumPy methods on ``fn.Tensor`` (``.T``, ``.reshape``,
``.astype``, ...), NumPy type promotion in Tensor operators and NumPy-style indexing.

Everything this switch changes on the Tensor class is installed by ``_install_methods`` and
``_install_operators`` below (one place), and only when the switch is turned on, as in TF.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Dict

import numpy as np

from fn import _core
from fn._ops import array_ops as _array_ops
from fn._tensor import tensor as _tensor
from fn._tensor import tensor_shape as _tensor_shape
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes
from fn._numpy._manip import transpose
from fn._numpy import _manip, _math, _reduce
from fn._numpy import _indexing

_mode = "off"
_original_ops: Dict[str, Callable] = {}

_PROMOTED_OPERATORS = (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__eq__",
    "__ne__",
    "__matmul__",
    "__rmatmul__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
)


def is_numpy_style_type_promotion() -> bool:
    return _mode == "legacy"


def _operand_dtype(x: Any) -> Any:
    if isinstance(x, numbers.Real) and not isinstance(x, np.generic):
        return x
    dt = getattr(x, "dtype", None)
    if isinstance(dt, _fn_dtypes.DType):
        return dt.as_numpy_dtype
    if isinstance(x, _tensor_shape.TensorShape):
        return np.int32
    if isinstance(x, (list, tuple)):
        raise ValueError(f"Cannot determine dtype.  Got sequence {x}.")
    return x


def maybe_promote_tensors(x: Any, y: Any) -> Any:
    """Both operands cast to NumPy's result type when NumPy promotion is on (TF's
    ``override_binary_operator.maybe_promote_tensors``)."""
    if not is_numpy_style_type_promotion():
        return x, y
    result = _dtypes.as_fn_dtype(_dtypes._np_result_type(_operand_dtype(x), _operand_dtype(y)))

    def promote(v: Any) -> Any:
        if isinstance(v, _tensor.Tensor):
            return v if v.dtype == result else _array_ops.cast(v, result)
        return _array_ops.convert_to_tensor(v, result)

    return promote(x), promote(y)


def _promoting(name: str, original: Callable) -> Callable:
    def op(self: Any, other: Any) -> Any:
        if is_numpy_style_type_promotion():
            try:
                self, other = maybe_promote_tensors(self, other)
            except (TypeError, ValueError):
                pass  # not a value NumPy can type (a RaggedTensor, ...): the operator decides
        return original(self, other)

    op.__name__ = name
    return op


def _tensor_t(self: Any) -> Any:

    return transpose(self)


def _tensor_size(self: Any) -> Any:
    if not self.shape.is_fully_defined():
        return None
    return int(np.prod(self.shape.as_list(), dtype=np.int64))


def _tensor_tolist(self: Any) -> Any:
    if not isinstance(self, _core.EagerTensor):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self.numpy().tolist()


def _astype(self: Any, dtype: Any) -> Any:
    return _array_ops.cast(self, _dtypes.as_fn_dtype(_dtypes.to_numpy_type(dtype)))


def _install_methods() -> None:

    T = _tensor.Tensor
    T.T = property(_tensor_t)
    T.size = property(_tensor_size)
    T.__pos__ = lambda self: self
    T.tolist = _tensor_tolist
    T.transpose = _manip.transpose
    T.flatten = _manip.flatten
    T.reshape = _manip.reshape_method
    T.ravel = _manip.ravel
    T.clip = _math.clip
    T.astype = _astype
    T.__round__ = _math.around
    T.max = _reduce.amax
    T.mean = _reduce.mean
    T.min = _reduce.amin
    T.data = property(lambda self: self)


def _install_operators() -> None:

    T = _tensor.Tensor
    if _original_ops:
        return
    for name in _PROMOTED_OPERATORS:
        original = getattr(T, name)
        _original_ops[name] = original
        setattr(T, name, _promoting(name, original))
    basic = T.__getitem__
    _original_ops["__getitem__"] = basic
    T.__getitem__ = lambda self, spec: _indexing.getitem(self, spec, basic)


def experimental_enable_numpy_behavior(prefer_float32: bool = False, dtype_conversion_mode: str = "legacy") -> None:
    """``tf.experimental.numpy.experimental_enable_numpy_behavior``: NumPy methods on Tensors,
    NumPy type promotion in Tensor operators (``dtype_conversion_mode='legacy'``), NumPy-style
    indexing, and float32 for Python floats when ``prefer_float32``."""
    global _mode
    if dtype_conversion_mode not in ("off", "legacy", "safe", "all"):
        raise ValueError(
            f"The provided promotion mode {dtype_conversion_mode} does not exist. "
            "Make sure the provided dtype conversion mode is one of the following: "
            "'off', 'legacy', 'safe' or 'all'."
        )
    _mode = dtype_conversion_mode
    _install_operators()
    _install_methods()
    _dtypes.set_prefer_float32(prefer_float32)
