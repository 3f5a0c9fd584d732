"""Elementwise ops on RaggedTensors: the op runs on ``flat_values`` once the operands share their
row partitions (a dense operand is broadcast onto the ragged one's partitions, as TF does)."""

from __future__ import annotations

from typing import Any, Callable

from fn import _core
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    gather,
    range as _range,
    reshape,
    shape as _shape,
    expand_dims,
)
from fn._ops.check_ops import assert_equal
from fn._ops.manip_ops import broadcast_to
from fn._ragged._ragged_tensor import RaggedTensor
from fn._tensor.tensor_shape import known_rank
import fn._ops.math_ops as m
from fn._ops.math_ops import equal


def assert_same_partitions(x: RaggedTensor, y: RaggedTensor) -> None:
    """TF's check that two ragged operands line up: their row splits, level by level."""
    if x.row_splits.dtype != y.row_splits.dtype:
        raise ValueError(
            "Input RaggedTensors have mismatched row_splits dtypes; use "
            "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
        )
    for sx, sy in zip(x.nested_row_splits, y.nested_row_splits):
        if sx is not sy:
            assert_equal(sx, sy)


def _dense_operand(y: Any, hint: Any) -> Any:
    if _core.is_tensor(y):
        return y
    if hasattr(y, "__fn_tensor__"):
        return y.__fn_tensor__(None)
    return _core.convert_to_tensor(y, None, hint)


def _broadcast_levels(y: Any, rt: RaggedTensor) -> Any:
    """``y`` (dense, rank == rt's rank) laid out as ``rt.flat_values`` (inner dims left to the op's
    own broadcasting)."""
    dt = rt.row_splits.dtype
    nrows = rt.nrows()
    if y.shape[0] == 1:
        y = broadcast_to(y, concat([expand_dims(cast(nrows, dt), 0), _shape(y, out_type=dt)[1:]], 0))
    elif y.shape[0] is not None:
        # TF checks that the dense operand's rows line up with the ragged one's.

        assert_equal(equal(cast(nrows, dt), cast(y.shape[0], dt)), True)
    if y.shape[1] == 1:
        y2 = gather(y[:, 0], rt.value_rowids())
    else:
        width = _shape(y, out_type=dt)[1]
        uniform = _range(cast(0, dt), cast(nrows, dt) + 1, dtype=dt) * width
        assert_equal(uniform, rt.row_splits)
        y2 = reshape(y, concat([convert_to_tensor([-1], dt), _shape(y, out_type=dt)[2:]], 0))
    if isinstance(rt.values, RaggedTensor):
        return _broadcast_levels(y2, rt.values)
    return y2


def dense_like_flat_values(y: Any, rt: RaggedTensor) -> Any:
    """A dense operand broadcast against ``rt``, as a tensor that broadcasts with its flat_values."""
    rank = known_rank(rt.shape)
    inner_rank = rank - rt.ragged_rank - 1
    yr = y.shape.rank
    if yr <= inner_rank:
        return y
    lead = y.shape.as_list()[: yr - inner_rank]
    if all(d == 1 for d in lead):
        return reshape(y, y.shape.as_list()[yr - inner_rank :]) if inner_rank > 0 else reshape(y, [])
    if yr < rank:
        y = reshape(y, [1] * (rank - yr) + y.shape.as_list())
    elif yr > rank:
        # A dense operand of higher rank than the ragged one: TF broadcasts the ragged one up.
        raise ValueError(f"Unable to broadcast: a RaggedTensor of rank {rank} with a Tensor of rank {yr}")
    return _broadcast_levels(y, rt)


def binary(op: Callable, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    """``op(x, y)`` with either operand ragged."""
    xr, yr = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
    if xr and yr:
        if x.ragged_rank != y.ragged_rank:
            raise ValueError(
                f"Ragged operands must have the same ragged_rank to be combined; got "
                f"{x.ragged_rank} and {y.ragged_rank}"
            )
        assert_same_partitions(x, y)
        return x.with_flat_values(op(x.flat_values, y.flat_values, *args, **kwargs))
    if xr:
        yd = dense_like_flat_values(_dense_operand(y, x.dtype), x)
        return x.with_flat_values(op(x.flat_values, yd, *args, **kwargs))
    xd = dense_like_flat_values(_dense_operand(x, y.dtype), y)
    return y.with_flat_values(op(xd, y.flat_values, *args, **kwargs))


def unary(op: Callable, x: RaggedTensor, *args: Any, **kwargs: Any) -> Any:
    """``op(x)`` on the flat values (the partitions are unchanged)."""
    return x.with_flat_values(op(x.flat_values, *args, **kwargs))


def _operator(name: str, reflected: bool = False) -> Callable:
    def f(self: RaggedTensor, other: Any) -> Any:

        op = getattr(m, name)
        return binary(op, other, self) if reflected else binary(op, self, other)

    f.__name__ = name
    return f


def _eq(self: RaggedTensor, other: Any) -> Any:
    """TF's ``RaggedTensor.__eq__``: elementwise where the shapes line up, else False."""

    try:
        return binary(m.equal, self, other)
    except Exception:  # TF: incompatible operands compare unequal
        return False


def _ne(self: RaggedTensor, other: Any) -> Any:

    try:
        return binary(m.not_equal, self, other)
    except Exception:
        return True


def install_operators() -> None:
    ops = {
        "__add__": "add",
        "__sub__": "subtract",
        "__mul__": "multiply",
        "__truediv__": "truediv",
        "__floordiv__": "floordiv",
        "__mod__": "floormod",
        "__pow__": "pow",
        "__lt__": "less",
        "__le__": "less_equal",
        "__gt__": "greater",
        "__ge__": "greater_equal",
        "__and__": "logical_and",
        "__or__": "logical_or",
        "__xor__": "logical_xor",
    }
    for dunder, name in ops.items():
        setattr(RaggedTensor, dunder, _operator(name))
        if not dunder.startswith(("__l", "__g")):
            setattr(RaggedTensor, "__r" + dunder[2:], _operator(name, reflected=True))

    methods = {
        "__neg__": lambda self: unary(m.negative, self),
        "__abs__": lambda self: unary(m.abs, self),
        "__invert__": lambda self: unary(m.logical_not, self),
        "__eq__": _eq,
        "__ne__": _ne,
        "__hash__": object.__hash__,
    }
    for name, method in methods.items():
        setattr(RaggedTensor, name, method)
