"""Ragged dispatch: the public ops that accept RaggedTensors (TF's ``dispatch_for_api`` list,
the part fn supports) are wrapped once, in the public namespaces, by a function that sends calls
with a RaggedTensor argument to the ragged implementation. Internal callers keep the plain ops.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Dict

from fn import _core
from fn._ragged._dynamic_shape import DynamicRaggedShape
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged import _array_ops as ra
from fn._ragged._elementwise import binary, unary
from fn._ragged import _dynamic_shape as ds, _shape_ops as so
from fn._ops.array_ops import convert_to_tensor
from fn._ragged._elementwise import dense_like_flat_values
from fn.dtypes import string
from fn._ops.math_ops import maximum, square
from fn._ops.math_ops import sqrt

_TYPES = (RaggedTensor, DynamicRaggedShape)

# Public functions that wrap one op (``_fn_op``, set by ``fn._ops.op_call.wraps_op``) accept
# RaggedTensors when the op's definition says it is elementwise (``_core.op_def(op)["op_class"]``
# "unary" or "binary": TF's ``register_unary/binary_elementwise_api``); these lists name only the
# compositions of several ops that TF dispatches too.
_BINARY = ["divide", "truediv", "divide_no_nan", "logical_xor"]
_UNARY = ["round", "cast", "zeros_like", "ones_like", "one_hot", "clip_by_value"]
_STRING_UNARY = [
    "length",
    "lower",
    "upper",
    "to_number",
    "as_string",
    "regex_replace",
    "regex_full_match",
    "to_hash_bucket_fast",
]
_REDUCE = {
    "reduce_sum": "sum",
    "reduce_mean": "mean",
    "reduce_max": "max",
    "reduce_min": "min",
    "reduce_prod": "prod",
    "reduce_any": "any",
    "reduce_all": "all",
}
_MODULES = ["fn", "fn.math", "fn.nn", "fn.strings", "fn.bitwise"]


def _op_class(op: Any) -> str:
    """The elementwise class (``op_class``) the definition of op type ``op`` states, "" for none."""
    if not isinstance(op, str) or not _core.has_op(op):
        return ""
    return str(_core.op_def(op)["op_class"])


def _has_ragged(args: tuple, kwargs: dict) -> bool:
    for group in (args, kwargs.values()):
        for a in group:
            if type(a) in _TYPES:
                return True
            if type(a) in (list, tuple) and any(type(x) in _TYPES for x in a):
                return True
    return False


def _wrap(orig: Callable, ragged_impl: Callable) -> Callable:
    @functools.wraps(orig)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if _has_ragged(args, kwargs):
            return ragged_impl(*args, **kwargs)
        return orig(*args, **kwargs)

    dispatch._fn_ragged_original = orig  # type: ignore[attr-defined]
    return dispatch


def _handlers(ns: Dict[str, Any]) -> Dict[str, Callable]:
    """name -> ragged implementation, given the plain op of that name."""

    out: Dict[str, Callable] = {}

    def bin_impl(op: Callable) -> Callable:
        def f(x: Any, y: Any, *a: Any, **k: Any) -> Any:
            k.pop("name", None)
            return binary(op, x, y, *a, **k)

        return f

    def un_impl(op: Callable) -> Callable:
        def f(x: Any, *a: Any, **k: Any) -> Any:
            k.pop("name", None)
            if not isinstance(x, RaggedTensor):
                x = k.pop("input", k.pop("x", x))
            return unary(op, x, *a, **k)

        return f

    def red_impl(kind: str, op: Callable) -> Callable:
        def f(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None) -> Any:
            return ra.reduce(kind, lambda t, ax: op(t, ax), input_tensor, axis, keepdims)

        return f

    for n, f in ns.items():
        op_class = _op_class(getattr(f, "_fn_op", None))
        if op_class == "binary":
            out[n] = bin_impl(f)
        elif op_class == "unary":
            out[n] = un_impl(f)
    for n in _BINARY:
        if n in ns:
            out[n] = bin_impl(ns[n])
    for n in _UNARY + _STRING_UNARY:
        if n in ns:
            out[n] = un_impl(ns[n])
    for n, kind in _REDUCE.items():
        if n in ns:
            out[n] = red_impl(kind, ns[n])
    if "reduce_mean" in ns:
        mean = out["reduce_mean"]

        def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None) -> Any:
            # TF's composition (ragged_math_ops.reduce_variance): E[x^2] - E[x]^2, clipped at 0.

            v = mean(unary(square, input_tensor), axis, keepdims) - square(mean(input_tensor, axis, keepdims))
            return maximum(v, 0) if not isinstance(v, RaggedTensor) else unary(lambda t: maximum(t, 0), v)

        out["reduce_variance"] = reduce_variance

        def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None) -> Any:

            v = reduce_variance(input_tensor, axis, keepdims)
            return unary(sqrt, v) if isinstance(v, RaggedTensor) else sqrt(v)

        out["reduce_std"] = reduce_std
    if "join" in ns:
        out["join"] = _join_impl(ns["join"])
    if "substr" in ns:
        out["substr"] = _substr_impl(ns["substr"])
    if "embedding_lookup" in ns:
        lookup = ns["embedding_lookup"]
        out["embedding_lookup"] = lambda params, ids, max_norm=None, name=None: ids.with_flat_values(
            lookup(params, ids.flat_values, max_norm=max_norm)
        )
    out["concat"] = lambda values, axis, name="concat": ra.concat(values, axis)
    out["stack"] = lambda values, axis=0, name="stack": ra.stack(values, axis)
    out["gather"] = ra.gather
    # TF 2.21's tf.boolean_mask does not accept RaggedTensors (tf.ragged.boolean_mask does).
    out["reverse"] = lambda tensor, axis, name=None: ra.reverse(tensor, axis)

    for n in ("size", "rank", "expand_dims", "squeeze", "where", "add_n"):
        out[n] = getattr(so, n)
    out["tile"] = ra.tile
    out["shape"] = ds.shape
    out["reshape"] = ds.reshape_to
    out["zeros"] = ds.zeros
    out["ones"] = ds.ones
    out["fill"] = ds.fill
    return out


def _substr_impl(substr: Callable) -> Callable:
    """``tf.strings.substr`` of a RaggedTensor: elementwise over its flat values, with ``pos`` and
    ``len`` scalars or tensors broadcast onto it (TF's dispatch refuses ragged ones)."""

    def f(input: Any, pos: Any, len: Any, unit: str = "BYTE", name: Any = None) -> Any:

        def flat(v: Any) -> Any:
            if isinstance(v, RaggedTensor):
                raise ValueError("TypeError: object of type 'RaggedTensor' has no len()")
            v = convert_to_tensor(v)
            return v if v.shape.rank == 0 else dense_like_flat_values(v, input)

        return input.with_flat_values(substr(input.flat_values, flat(pos), flat(len), unit=unit))

    return f


def _join_impl(join: Callable) -> Callable:
    """``tf.strings.join`` of RaggedTensors (and strings broadcast onto them)."""

    def f(inputs: Any, separator: str = "", name: Any = None) -> Any:
        from fn._ragged._elementwise import _dense_operand, assert_same_partitions, dense_like_flat_values

        ref = next(v for v in inputs if isinstance(v, RaggedTensor))
        sizes = {v.flat_values.shape[0] for v in inputs if isinstance(v, RaggedTensor)}
        if len(sizes) > 1 and None not in sizes:
            raise ValueError(
                f"Input RaggedTensors' flat_values must all have the same outer-dimension size.  Got sizes: {sizes}"
            )
        flats = []
        for v in inputs:
            if isinstance(v, RaggedTensor):
                assert_same_partitions(ref, v)
                flats.append(v.flat_values)
            else:
                flats.append(dense_like_flat_values(_dense_operand(v, string), ref))
        return ref.with_flat_values(join(flats, separator=separator))

    return f


def install() -> None:
    """Wraps the supported ops in the public namespaces (each original wrapped once, so
    ``fn.add is fn.math.add`` still holds)."""
    wrapped: Dict[int, Callable] = {}
    for mod_name in _MODULES:
        mod = sys.modules.get(mod_name)
        if mod is None:
            continue
        ns = vars(mod)
        handlers = _handlers({n: getattr(mod, n) for n in list(ns) if not n.startswith("_")})
        for name, impl in handlers.items():
            orig = ns.get(name)
            if orig is None or not callable(orig) or hasattr(orig, "_fn_ragged_original"):
                continue
            if mod_name == "fn.strings" and name not in _STRING_UNARY + ["join", "substr"]:
                continue
            w = wrapped.get(id(orig))
            if w is None:
                w = wrapped[id(orig)] = _wrap(orig, impl)
            setattr(mod, name, w)
