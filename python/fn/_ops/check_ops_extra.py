"""``tf.debugging.assert_near``, ``assert_integer``, ``assert_rank_in``, ``assert_proper_iterable``,
``assert_same_float_dtype`` and ``assert_shapes``: TensorFlow 2.21's checks and messages.

What is known while tracing is checked then (TF's ValueError / TypeError); what only the run knows
(a value, a rank or a dimension left unknown by the signature) becomes a host op that fails the
run with InvalidArgumentError in TF's graph wording (``assertion failed: [...]``), as the checks
of ``check_ops`` do. Eagerly everything is checked at once and the functions return None.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from fn import _core
from fn._ops.check_ops import Assert, _graph_check, _graph_text, _scope, _static_ok, _tensor, assert_type
from fn.dtypes import int32


def _prefix(message: Optional[str]) -> str:
    """TF's ``check_ops._message_prefix``."""
    return f"{message}.  " if message else ""


def _shape_and_dtype(t: Any) -> str:
    return f"shape={t.shape} dtype={t.dtype.name}"


def _shape_tensor(shape: Sequence[int]) -> Any:
    """A run's shape as TF's ``tf.shape`` prints it in an assert's data."""
    return _core.convert_to_tensor(np.asarray(list(shape), np.int32), None, None)


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    message: Optional[str] = None,
    summarize: Optional[int] = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.debugging.assert_near``: ``|x - y| < atol + rtol * |y|`` elementwise (defaults 10 eps)."""
    from fn._ops import math_ops as m

    prefix = _prefix(message)
    with _scope(name, "assert_near"):
        x = _tensor(x)
        try:
            y = _core.convert_to_tensor(y, x.dtype, None)
        except ValueError as e:
            raise ValueError(f"y: {e}") from None
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        if dtype.name == "bfloat16":  # TF asks np.finfo, which does not know ml_dtypes' bfloat16
            raise ValueError("data type <class 'ml_dtypes.bfloat16'> not inexact")
        eps = np.finfo(dtype.as_numpy_dtype).eps  # ValueError "... not inexact" for integers, as TF
        rtol = _const(10 * eps if rtol is None else rtol, dtype, "rtol")
        atol = _const(10 * eps if atol is None else atol, dtype, "atol")
        eager = _core.executing_eagerly()
        x_name = _shape_and_dtype(x) if eager else x.name
        y_name = _shape_and_dtype(y) if eager else y.name
        data = [
            prefix,
            f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({x_name}) = ",
            x,
            f"y ({y_name}) = ",
            y,
        ]
        condition = m.reduce_all(m.less(m.abs(x - y), atol + rtol * m.abs(y)))
        return Assert(condition, data, summarize=summarize)


def _const(value: Any, dtype: Any, name: str) -> Any:
    if _core.is_tensor(value):
        return _core.convert_to_tensor(value, dtype, None)
    from fn._ops.array_ops import constant

    return constant(value, dtype, name=name)


def assert_integer(x: Any, message: Optional[str] = None, name: Optional[str] = None) -> None:
    """``tf.debugging.assert_integer``: TypeError unless ``x`` has a (non-quantized) integer dtype."""
    x = _tensor(x)
    if not x.dtype.is_integer:
        who = "tensor" if _core.executing_eagerly() else x.name
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: {who} of dtype {x.dtype}')


def assert_proper_iterable(values: Any) -> None:
    """``tf.debugging.assert_proper_iterable``: TypeError for a tensor, ndarray, str or bytes (iterable
    by accident) and for anything not iterable."""
    from fn._sparse.sparse_tensor import SparseTensor

    if (
        _core.is_tensor(values)
        and not hasattr(values, "assign")
        or isinstance(values, (SparseTensor, np.ndarray, bytes, str))
    ):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _item_str(item: Any) -> str:
    """TF prints an item by its name where it has one (graph tensors, variables), else str()."""
    if _core.is_tensor(item) and getattr(item, "_is_eager", False) and not hasattr(item, "assign"):
        return str(item)
    return item.name if hasattr(item, "name") else str(item)


def assert_same_float_dtype(tensors: Optional[Sequence[Any]] = None, dtype: Any = None) -> Any:
    """``tf.debugging.assert_same_float_dtype``: the common float dtype of ``tensors`` (and ``dtype``);
    float32 when neither is given."""
    if tensors:
        expected, first = dtype, None
        for item in tensors:
            if item is None:
                continue
            item_type = item.dtype.base_dtype
            if not expected:
                expected, first = item_type, _item_str(item)
            elif expected != item_type:
                as_first = f" as {first}" if first else ""
                raise ValueError(
                    f"{_item_str(item)}, type={item_type}, must be of the same type ({expected}){as_first}."
                )
        dtype = expected
    if not dtype:
        from fn.dtypes import float32

        return float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def assert_rank_in(x: Any, ranks: Sequence[Any], message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_rank_in``: the rank of ``x`` must be one of ``ranks`` (scalar int32)."""
    x = _tensor(x)
    ranks = list(ranks)
    rank_ts = [_tensor(r) for r in ranks]
    for r in rank_ts:
        assert_type(r, int32)
    prefix = _prefix(message)
    eager = _core.executing_eagerly()
    who = "" if eager else x.name
    # Ranks given as numbers or eager tensors are known while tracing (TF's constant_value).
    known = all(not _core.is_tensor(r) or getattr(r, "_is_eager", False) for r in ranks)
    if known:
        values = [np.asarray(r.numpy() if _core.is_tensor(r) else r) for r in ranks]
        if any(v.ndim != 0 for v in values):
            raise ValueError("Rank must be a scalar.")
        wanted = tuple(int(v) for v in values)
        if x.shape.rank is not None:
            if x.shape.rank not in wanted:
                raise ValueError(
                    f"{prefix}Tensor {who} must have rank in {wanted}.  Received rank {x.shape.rank}, shape {x.shape}"
                )
            return None if eager else _static_ok(name or "assert_rank_in")

    def check(v: Any, *rs: Any) -> Optional[str]:
        got = [np.asarray(r.numpy()) for r in rs]
        if any(g.ndim != 0 for g in got):
            return _graph_text(["Rank must be a scalar. Received rank: ", *rs], None)
        shape = np.shape(v.numpy())
        if len(shape) in [int(g) for g in got]:
            return None
        return _graph_text(
            [prefix, f"Tensor {who} must have rank in", *rs, "Received shape: ", _shape_tensor(shape)], None
        )

    return _graph_check(check, [x, *rank_ts], f"{name or 'assert_rank_in'}/Assert")
