"""Math ops: ``fn.add``, ``fn.matmul`` (TensorFlow's names and dtype rules)."""
from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn.array_ops import convert_to_tensor


def _binary_args(x: Any, y: Any) -> tuple:
    # TF converts the non-tensor operand to the tensor operand's dtype.
    if _core.is_tensor(x):
        return x, _core.convert_to_tensor(y, None, x.dtype)
    if _core.is_tensor(y):
        return _core.convert_to_tensor(x, None, y.dtype), y
    x = convert_to_tensor(x)
    return x, _core.convert_to_tensor(y, None, x.dtype)


def add(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.add`` / ``tf.math.add``: elementwise sum with broadcasting (strings concatenate)."""
    x, y = _binary_args(x, y)
    return _core.execute("AddV2", [x, y], None, name)[0]


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.matmul``: rank-2 MatMul, or BatchMatMulV2 for higher ranks (oneDNN for float32)."""
    a, b = _binary_args(a, b)
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = a._rank, b._rank
    if ra == 2 and rb == 2:
        return _core.execute("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, name)[0]
    return _core.execute("BatchMatMulV2", [a, b], {"adj_x": ta, "adj_y": tb}, name or "MatMul")[0]


def _matmul_operator(a: Any, b: Any) -> Any:
    return matmul(a, b)


def _install_operators() -> None:
    _core.Tensor.__matmul__ = _matmul_operator
    _core.Tensor.__rmatmul__ = lambda a, b: matmul(b, a)


_install_operators()
