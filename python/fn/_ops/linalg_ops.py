"""``tf.linalg`` solvers and ``tf.math`` special functions, one C++ op each: ``inv``
(MatrixInverse), ``det`` (MatrixDeterminant), ``solve`` (MatrixSolve), ``erf``, ``atan2``,
``segment_sum``."""

from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn._ops.array_ops import _int_tensor, convert_to_tensor
from fn._ops.op_call import run_op as _run, wraps_op
from fn._ops.math_ops import _binary_args


def inv(input: Any, adjoint: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.inv``: the inverse of each square matrix in the last two dims
    (``InvalidArgumentError`` when singular)."""
    return _run("MatrixInverse", [convert_to_tensor(input)], {"adjoint": bool(adjoint)}, name)


def det(input: Any, name: Optional[str] = None) -> Any:
    """``tf.linalg.det``: the determinant of each square matrix in the last two dims."""
    return _run("MatrixDeterminant", [convert_to_tensor(input)], None, name)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: Optional[str] = None) -> Any:
    """``tf.linalg.solve``: ``X`` with ``matrix @ X = rhs`` (``adjoint``: ``matrix^H @ X = rhs``)."""
    matrix = convert_to_tensor(matrix)
    rhs = _core.convert_to_tensor(rhs, None, matrix.dtype)
    return _run("MatrixSolve", [matrix, rhs], {"adjoint": bool(adjoint)}, name)


@wraps_op("Erf")
def erf(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.erf``: the Gauss error function."""
    if hasattr(type(x), "_fn_unary_dispatch"):  # SparseTensor values
        return x._fn_unary_dispatch("Erf", erf, name)
    return _run("Erf", [convert_to_tensor(x)], None, name)


@wraps_op("Atan2")
def atan2(y: Any, x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.atan2``: the angle of (x, y), elementwise with broadcasting."""
    y, x = _binary_args(y, x)
    return _run("Atan2", [y, x], None, name)


def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None) -> Any:
    """``tf.math.segment_sum``: sums of the rows of ``data`` sharing a (sorted) segment id."""
    return _run("SegmentSum", [convert_to_tensor(data), _int_tensor(segment_ids)], None, name)
