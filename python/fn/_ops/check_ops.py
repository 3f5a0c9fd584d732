"""``tf.debugging.assert_*``, ``tf.Assert`` and ``check_numerics``: TensorFlow's messages.

Eagerly a failed check raises ``InvalidArgumentError`` at once (TF's eager wording, from
``check_ops._make_assert_msg_data``). Inside a Function the check is a host op (``PyCall``,
stateful, so it is never pruned) that raises when the graph runs, with TF's graph wording
(``assertion failed: [...] [...]``). Static facts (rank, dtype, scalar) raise ValueError or
TypeError while tracing, as TF does.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from fn import _core
from fn._function.operation import Operation
from fn.errors import InvalidArgumentError
from fn.dtypes import as_dtype

# TF 2.21 runs eager ops as wrapped functions and names that in their errors.
_WRAPPED = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _tensor(x: Any) -> Any:
    return x if _core.is_tensor(x) else _core.convert_to_tensor(x, None, None)


def _pretty(item: Any, summarize: int) -> str:
    """TF's ``check_ops._pretty_print``: tensors as a list of element strings."""
    if _core.is_tensor(item):
        arr = item.numpy()
        if np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape((-1,))
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
        return str(lst)
    return str(item)


def _summarize(t: Any, summarize: Optional[int]) -> str:
    """TF's ``_summarize_eager`` (what ``tf.Assert`` prints for each data item)."""
    t = _tensor(t)
    n = 3 if summarize is None else (t.shape.num_elements() if summarize < 0 else summarize)
    arr = t.numpy()
    if np.ndim(arr) == 0:
        return str(arr) if n != 0 else ""
    flat = np.asarray(arr).reshape((-1,))
    lst = [str(v) for v in flat[:n]]
    if len(lst) < flat.size:
        lst.append("...")
    return ", ".join(lst)


def _graph_check(check: Callable[..., Optional[str]], inputs: List[Any], name: str) -> Any:
    """A host op that calls ``check(*eager inputs)`` when the graph runs; a returned message
    fails the run with InvalidArgumentError. Returns its Operation (TF's assert op)."""

    def call(*values: Any) -> None:
        msg = check(*values)
        if msg is not None:
            raise InvalidArgumentError(None, None, msg)

    _core.execute("PyCall", list(inputs), {"callable": call}, name)
    graph = _core.current_graph()
    return Operation(graph, graph.num_nodes() - 1)


_C_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}


def _c_escape(text: str) -> str:
    """TF's Assert kernel prints a string as ``absl::Utf8SafeCEscape`` does: quotes, backslashes and
    control characters escaped (octal where they have no letter), UTF-8 text kept."""
    out = []
    for c in text:
        b = ord(c)
        out.append(_C_ESCAPES.get(c, c if 0x20 <= b != 0x7F else f"\\{b:03o}"))
    return "".join(out)


def _summarize_array(arr: np.ndarray, n: int) -> str:
    """TF's ``Tensor::SummarizeValue`` (``PrintOneDim``): the first ``n`` elements (all if n < 0),
    rows nested in brackets, ``...`` where elements were left out."""
    flat = arr.reshape((-1,))
    limit = flat.size if n < 0 else min(n, flat.size)
    fmt = (lambda v: np.format_float_positional(v, trim="-")) if arr.dtype.kind == "f" else str
    out: List[str] = []
    at = 0

    def dim(k: int) -> None:
        nonlocal at
        if at >= limit:
            return
        if k == arr.ndim - 1:
            for i in range(arr.shape[k]):
                if at >= limit:
                    if k != 0:
                        out.append("...")
                    return
                out.append((" " if i else "") + fmt(flat[at]))
                at += 1
            return
        for _ in range(arr.shape[k]):
            opened = at < limit
            if opened:
                out.append("[")
            dim(k + 1)
            if at < limit or opened:
                out.append("]")

    if arr.ndim == 0:
        return fmt(flat[0]) if limit else ""
    dim(0)
    return "".join(out) + ("..." if flat.size > limit else "")


def _graph_text(items: Sequence[Any], summarize: Optional[int]) -> str:
    """What TF's Assert op reports: each item in brackets, tensors summarized, strings escaped."""
    n = 3 if summarize is None else summarize
    parts = []
    for d in items:
        if _core.is_tensor(d):
            parts.append(_summarize_array(np.asarray(d.numpy()), n))
        else:
            parts.append(_c_escape(str(d.decode() if isinstance(d, bytes) else d)))
    return "assertion failed: " + " ".join(f"[{p}]" for p in parts)


def Assert(condition: Any, data: Sequence[Any], summarize: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.Assert`` / ``tf.Assert``: fails when ``condition`` is false, printing ``data``."""
    if _core.executing_eagerly():
        cond = condition.numpy() if _core.is_tensor(condition) else condition
        if not cond:
            text = "\n".join(_summarize(d, summarize) for d in data)
            raise InvalidArgumentError(None, None, f"Expected '{condition!s}' to be true. Summarized data: {text}")
        return None
    tensors = [_tensor(condition)] + [d for d in data if _core.is_tensor(d)]
    order = [d if not _core.is_tensor(d) else None for d in data]

    def check(cond: Any, *values: Any) -> Optional[str]:
        c = np.asarray(cond.numpy())
        if c.ndim:  # TF's Assert kernel takes a scalar condition only
            dims = ",".join(str(d) for d in c.shape)
            raise InvalidArgumentError(None, None, f"The second input must be a scalar, but it has shape [{dims}]")
        if bool(c):
            return None
        it = iter(values)
        return _graph_text([next(it) if o is None else o for o in order], summarize)

    if name is not None:
        return _graph_check(check, tensors, name)
    with _scope("Assert"):  # TF's node: Assert/AssertGuard/Assert
        return _graph_check(check, tensors, "AssertGuard/Assert")


def _scope(name: Optional[str], default: str = "") -> Any:
    """TF's ``name_scope`` (imported lazily: name_scope imports the op layer)."""
    from fn._function.name_scope import name_scope

    return name_scope(name or default)


def _binary(
    sym: str,
    op: Callable,
    x: Any,
    y: Any,
    data: Any,
    summarize: Optional[int],
    message: Optional[str],
    name: str,
    reserve: bool = False,
) -> Any:
    """A binary check; in a graph under TF's scope (its ``x``/``y`` constants and its
    ``NAME/Assert/AssertGuard/Assert`` node, the names TF's run-time text shows). ``reserve``:
    ``tf.debugging.assert_equal`` takes one scope name more (TF's v2 wrapper opens its own)."""
    if _core.executing_eagerly():
        return _binary_checked(sym, op, x, y, data, summarize, message, name)
    if reserve:
        with _scope(name):
            pass
    with _scope(name):
        x = x if _core.is_tensor(x) else _core.convert_to_tensor(x, None, None, "x")
        y = y if _core.is_tensor(y) else _core.convert_to_tensor(y, None, None, "y")
        return _binary_checked(sym, op, x, y, data, summarize, message, "Assert/AssertGuard/Assert")


def _binary_checked(
    sym: str, op: Callable, x: Any, y: Any, data: Any, summarize: Optional[int], message: Optional[str], name: str
) -> Any:
    x, y = _tensor(x), _tensor(y)
    if x.dtype != y.dtype:
        y = _core.convert_to_tensor(y.numpy(), x.dtype, None) if y._is_eager else y
    n = 3 if summarize is None else (10**9 if summarize < 0 else summarize)

    def fail_text(xv: Any, yv: Any) -> Optional[str]:
        xa, ya = np.asarray(xv.numpy()), np.asarray(yv.numpy())
        test = np.asarray(op(xa, ya))
        if test.all():
            return None
        if data is not None:
            items = list(data)
        else:
            items = [f"Condition x {sym} y did not hold."]
            if n > 0:
                if xa.shape == ya.shape and xa.ndim:
                    idx = np.argwhere(~test)
                    k = min(n, idx.shape[0])
                    items += [
                        f"Indices of first {k} different values:",
                        idx[:k],
                        "Corresponding x values:",
                        xa[~test].reshape(-1)[:k],
                        "Corresponding y values:",
                        ya[~test].reshape(-1)[:k],
                    ]
                fx, fy = xa.reshape(-1), ya.reshape(-1)
                items += [
                    f"First {min(fx.size, n)} elements of x:",
                    fx[:n],
                    f"First {min(fy.size, n)} elements of y:",
                    fy[:n],
                ]
        if message is not None:
            items = [message] + items
        return "\n".join(_pretty(i, n) for i in items)

    if _core.executing_eagerly():
        try:
            np.broadcast_shapes(tuple(x.shape.as_list()), tuple(y.shape.as_list()))
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                _WRAPPED % _OP_NAMES[sym] + f"Incompatible shapes: {x.shape.as_list()} vs. "
                f"{y.shape.as_list()} [Op:{_OP_NAMES[sym]}] name: ",
            ) from None
        msg = fail_text(x, y)
        if msg is not None:
            raise InvalidArgumentError(None, None, msg)
        return None
    # In a graph, TF's Assert op text: the data items bracketed, x and y named by their tensors.
    if data is None:
        data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
    items = ([message] if message is not None else []) + list(data)

    def graph_text(xv: Any, yv: Any) -> Optional[str]:
        if np.asarray(op(np.asarray(xv.numpy()), np.asarray(yv.numpy()))).all():
            return None
        return _graph_text([xv if i is x else yv if i is y else i for i in items], summarize)

    return _graph_check(graph_text, [x, y], name)


_OP_NAMES = {"==": "Equal", "!=": "NotEqual", "<": "Less", "<=": "LessEqual", ">": "Greater", ">=": "GreaterEqual"}


def assert_equal(
    x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_equal``: x == y elementwise."""
    return _binary("==", np.equal, x, y, None, summarize, message, name or "assert_equal", True)


def assert_none_equal(
    x: Any, y: Any, summarize: Optional[int] = None, message: Optional[str] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_none_equal``: x != y elementwise."""
    return _binary("!=", np.not_equal, x, y, None, summarize, message, name or "assert_none_equal")


def assert_less(
    x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_less``: x < y elementwise."""
    return _binary("<", np.less, x, y, None, summarize, message, name or "assert_less")


def assert_less_equal(
    x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_less_equal``: x <= y elementwise."""
    return _binary("<=", np.less_equal, x, y, None, summarize, message, name or "assert_less_equal")


def assert_greater(
    x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_greater``: x > y elementwise."""
    return _binary(">", np.greater, x, y, None, summarize, message, name or "assert_greater")


def assert_greater_equal(
    x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_greater_equal``: x >= y elementwise."""
    return _binary(">=", np.greater_equal, x, y, None, summarize, message, name or "assert_greater_equal")


def _unary(sym: str, op: Callable, x: Any, message: Optional[str], summarize: Optional[int], name: str) -> Any:
    x = _tensor(x)
    if _core.executing_eagerly():
        zero = _core.convert_to_tensor(np.zeros([], x.dtype.as_numpy_dtype), None, None)
        label = f"x (shape={x.shape} dtype={x.dtype.name}) = "
        data = [message or "", f"Condition x {sym} 0 did not hold element-wise:", label, x]
        return _binary(sym, lambda a, b: op(a, b), x, zero, data, summarize, None, name)
    # TF's graph data: the message with its ".  " suffix, and x named by its tensor; TF's
    # assert_non_positive lacks a comma there, so two of its items read as one.
    prefix = f"{message}.  " if message else ""
    cond = f"Condition x {sym} 0 did not hold element-wise:"
    data = [prefix, cond + f"x ({x.name}) = ", x] if sym == "<=" else [prefix, cond, f"x ({x.name}) = ", x]
    # TF's nodes: NAME/Const (the zero), then assert_less(_equal) inside NAME.
    with _scope(name):
        zero = _core.convert_to_tensor(np.zeros([], x.dtype.as_numpy_dtype), None, None)
        inner = "assert_less" if sym in ("<", ">") else "assert_less_equal"
        return _binary(sym, op, x, zero, data, summarize, None, inner)


def assert_positive(
    x: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_positive``: x > 0 elementwise."""
    return _unary(">", np.greater, x, message, summarize, name or "assert_positive")


def assert_negative(
    x: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_negative``: x < 0 elementwise."""
    return _unary("<", np.less, x, message, summarize, name or "assert_negative")


def assert_non_negative(
    x: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_non_negative``: x >= 0 elementwise."""
    return _unary(">=", np.greater_equal, x, message, summarize, name or "assert_non_negative")


def assert_non_positive(
    x: Any, message: Optional[str] = None, summarize: Optional[int] = None, name: Optional[str] = None
) -> Any:
    """``tf.debugging.assert_non_positive``: x <= 0 elementwise."""
    return _unary("<=", np.less_equal, x, message, summarize, name or "assert_non_positive")


def assert_rank(x: Any, rank: int, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_rank``: the static rank must be ``rank`` (ValueError otherwise)."""
    return _assert_rank(x, int(rank), message, name or "assert_rank", "", np.equal)


def assert_rank_at_least(x: Any, rank: int, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_rank_at_least``."""
    return _assert_rank(x, int(rank), message, name or "assert_rank_at_least", " at least", np.greater_equal)


def _assert_rank(x: Any, rank: int, message: Optional[str], scope: str, kind: str, ok: Callable) -> Any:
    """A rank check: decided while tracing when the rank is known (ValueError naming the graph
    tensor, nothing eagerly), else a run-time check with TF's data."""
    x = _tensor(x)
    r = x.shape.rank
    prefix = f"{message}.  " if message else ""
    who = "" if _core.executing_eagerly() else x.name
    if r is None and not _core.executing_eagerly():  # known when the graph runs: checked then

        def check(v: Any) -> Optional[str]:
            shape = np.shape(v.numpy())
            if ok(len(shape), rank):
                return None
            got = _core.convert_to_tensor(np.asarray(shape, np.int32), None, None)
            return _graph_text([prefix, f"Tensor {who} must have rank{kind}", rank, "Received shape: ", got], None)

        return _graph_check(check, [x], scope)
    if r is not None and not ok(r, rank):
        raise ValueError(f"{prefix}Tensor {who} must have rank{kind} {rank}.  Received rank {r}, shape {x.shape}")
    return _static_ok(scope)


def _static_ok(scope: str) -> Any:
    """A check decided while tracing: TF's ``NoOp`` (an Operation for tf.control_dependencies)
    inside a Function, None eagerly."""
    from fn._ops.no_op import no_op

    return no_op(scope + "/static_checks_determined_all_ok")


def assert_scalar(tensor: Any, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_scalar``."""
    t = _tensor(tensor)
    if t.shape.rank is not None and t.shape.rank != 0:
        prefix = f"{message}  " if message else ""
        raise ValueError(f"{prefix}Expected scalar shape, saw shape: {t.shape}.")
    return None  # TF 2's assert_scalar returns nothing


def assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_type``: the dtype must be ``tf_type`` (TypeError otherwise)."""
    t = _tensor(tensor)
    want = as_dtype(tf_type)
    if t.dtype != want:
        prefix = f"{message}, " if message else ""
        raise TypeError(f"{prefix}tensor must be of type tf.{want.name}; got tf.{t.dtype.name}")
    return None


def is_numeric_tensor(tensor: Any) -> bool:
    """``tf.debugging.is_numeric_tensor``."""
    return _core.is_tensor(tensor) and tensor.dtype.name not in ("string", "bool", "resource", "variant")


def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> Any:
    """``tf.debugging.check_numerics``: returns ``tensor``; fails if it holds NaN or Inf."""
    t = _tensor(tensor)

    def bad(v: Any) -> Optional[str]:
        a = np.asarray(v.numpy())
        if np.isnan(a).any():
            return f"{message} : Tensor had NaN values"
        if np.isinf(a).any():
            return f"{message} : Tensor had Inf values"
        return None

    if _core.executing_eagerly():
        msg = bad(t)
        if msg is not None:
            raise InvalidArgumentError(None, None, _WRAPPED % "CheckNumerics" + f"{msg} [Op:CheckNumerics] name: ")
        return t
    _graph_check(bad, [t], name or "CheckNumerics")
    return t


def assert_all_finite(x: Any, message: str, name: Optional[str] = None) -> Any:
    """``tf.debugging.assert_all_finite``: ``check_numerics``."""
    return check_numerics(x, message, name)
