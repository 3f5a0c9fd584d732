"""Type-based dispatch of public ops (TF's ``tf.experimental.dispatch_for_api``,
``dispatch_for_unary_elementwise_apis``, ``dispatch_for_binary_elementwise_apis`` and
``unregister_dispatch_for``).

Every public op function (those of ``fn._ops`` as exported in ``fn``, ``fn.math``, ``fn.nn``...)
is wrapped once by ``install``; a wrapper holds the dispatchers registered for its API and, when a
call's arguments match one's signature, calls it instead of the op. The check costs one attribute
read when nothing is registered. ExtensionTypes register here; so could RaggedTensor.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import sys
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

_MODULES = [
    "fn",
    "fn.math",
    "fn.nn",
    "fn.linalg",
    "fn.strings",
    "fn.bitwise",
    "fn.image",
    "fn.dtypes",
    "fn.debugging",
    "fn.io",
    "fn.random",
    "fn.sparse",
]
# fn._ops modules whose functions are not dispatchable APIs in TF (control flow, Python callbacks).
_NOT_APIS = ("fn._ops.control_flow_ops", "fn._ops.functional_ops", "fn._ops.script_ops", "fn._ops.print_ops")

# TF 2.21's elementwise API lists (dispatch.unary_elementwise_apis / binary_elementwise_apis),
# by public name; names fn does not have are skipped.
UNARY_ELEMENTWISE_APIS = [
    "bitwise.invert",
    "cast",
    "clip_by_value",
    "debugging.check_numerics",
    "dtypes.saturate_cast",
    "image.adjust_brightness",
    "image.adjust_gamma",
    "image.convert_image_dtype",
    "io.decode_base64",
    "io.decode_compressed",
    "io.encode_base64",
    "math.abs",
    "math.acos",
    "math.acosh",
    "math.angle",
    "math.asin",
    "math.asinh",
    "math.atan",
    "math.atanh",
    "math.bessel_i0",
    "math.bessel_i0e",
    "math.bessel_i1",
    "math.bessel_i1e",
    "math.ceil",
    "math.conj",
    "math.cos",
    "math.cosh",
    "math.digamma",
    "math.erf",
    "math.erfc",
    "math.erfcinv",
    "math.erfinv",
    "math.exp",
    "math.expm1",
    "math.floor",
    "math.imag",
    "math.is_finite",
    "math.is_inf",
    "math.is_nan",
    "math.lgamma",
    "math.log",
    "math.log1p",
    "math.log_sigmoid",
    "math.logical_not",
    "math.ndtri",
    "math.negative",
    "math.nextafter",
    "math.real",
    "math.reciprocal",
    "math.reciprocal_no_nan",
    "math.rint",
    "math.round",
    "math.rsqrt",
    "math.sigmoid",
    "math.sign",
    "math.sin",
    "math.sinh",
    "math.softplus",
    "math.sqrt",
    "math.square",
    "math.tan",
    "math.tanh",
    "nn.elu",
    "nn.gelu",
    "nn.leaky_relu",
    "nn.log_softmax",
    "nn.relu",
    "nn.relu6",
    "nn.selu",
    "nn.silu",
    "nn.softsign",
    "ones_like",
    "strings.as_string",
    "strings.length",
    "strings.lower",
    "strings.regex_full_match",
    "strings.regex_replace",
    "strings.strip",
    "strings.substr",
    "strings.to_hash_bucket",
    "strings.to_hash_bucket_fast",
    "strings.to_hash_bucket_strong",
    "strings.to_number",
    "strings.unicode_script",
    "strings.unicode_transcode",
    "strings.upper",
    "zeros_like",
]
BINARY_ELEMENTWISE_APIS = [
    "bitwise.bitwise_and",
    "bitwise.bitwise_or",
    "bitwise.bitwise_xor",
    "bitwise.left_shift",
    "bitwise.right_shift",
    "dtypes.complex",
    "math.add",
    "math.atan2",
    "math.divide",
    "math.divide_no_nan",
    "math.equal",
    "math.floordiv",
    "math.floormod",
    "math.greater",
    "math.greater_equal",
    "math.less",
    "math.less_equal",
    "math.logical_and",
    "math.logical_or",
    "math.logical_xor",
    "math.maximum",
    "math.minimum",
    "math.multiply",
    "math.multiply_no_nan",
    "math.not_equal",
    "math.pow",
    "math.scalar_mul",
    "math.squared_difference",
    "math.subtract",
    "math.truediv",
    "math.xdivy",
    "math.xlog1py",
    "math.xlogy",
    "math.zeta",
    "nn.sigmoid_cross_entropy_with_logits",
    "realdiv",
    "truncatediv",
    "truncatemod",
]


# TF 2.21's binary elementwise assert APIs (tf.debugging's, v2).
BINARY_ELEMENTWISE_ASSERT_APIS = [
    "debugging.assert_equal",
    "debugging.assert_none_equal",
    "debugging.assert_near",
    "debugging.assert_less",
    "debugging.assert_less_equal",
    "debugging.assert_greater",
    "debugging.assert_greater_equal",
]


class _Dispatcher:
    """One registered target: its handler and the checker of the call's bound arguments."""

    def __init__(self, handler: Callable, check: Callable[[inspect.BoundArguments], bool]) -> None:
        self.handler, self.check = handler, check


# A public op wrapped by _wrap: callable, with the attributes _fn_dispatchers (its registered
# targets) and _fn_dispatch_api (the op itself).
DispatchWrapper = Any


def _wrap(api: Callable) -> DispatchWrapper:
    targets: List[_Dispatcher] = []

    @functools.wraps(api)
    def dispatch_wrapper(*args: Any, **kwargs: Any) -> Any:
        if targets:
            result = _dispatch(wrapper, targets, args, kwargs)
            if result is not NotImplemented:
                return result
        return api(*args, **kwargs)

    wrapper: DispatchWrapper = dispatch_wrapper
    wrapper._fn_dispatchers = targets
    wrapper._fn_dispatch_api = api
    return wrapper


def _signature(wrapper: DispatchWrapper) -> inspect.Signature:
    sig = getattr(wrapper, "_fn_signature", None)
    if sig is None:
        sig = inspect.signature(wrapper._fn_dispatch_api)
        wrapper._fn_signature = sig
    return sig


def _dispatch(wrapper: DispatchWrapper, targets: List[_Dispatcher], args: tuple, kwargs: dict) -> Any:
    try:
        bound = _signature(wrapper).bind(*args, **kwargs)
    except TypeError:
        return NotImplemented
    for target in reversed(targets):  # the most recent registration wins
        if target.check(bound):
            return target.handler(*args, **kwargs)
    return NotImplemented


# ---- type annotations as value checkers -------------------------------------------------------


def _is_dispatchable_type(t: Any) -> bool:
    """ExtensionTypes and other composites (not tf.Tensor) make a signature dispatch."""
    return isinstance(t, type) and hasattr(t, "__fn_composite__") and not hasattr(t, "_fn_from_components")


def _checker(annotation: Any) -> Tuple[Callable[[Any], bool], Callable[[Any], bool]]:
    """(matches, has_dispatchable): whether a value fits the annotation, and whether it holds a
    value of a dispatchable type where the annotation names one."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        parts = [_checker(a) for a in args]
        return (lambda v: any(m(v) for m, _ in parts), lambda v: any(m(v) and d(v) for m, d in parts))
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable) and args:
        elem_m, elem_d = _checker(args[0])
        return (
            lambda v: isinstance(v, (list, tuple)) and all(elem_m(x) for x in v),
            lambda v: isinstance(v, (list, tuple)) and any(elem_d(x) for x in v),
        )
    if annotation is None or annotation is type(None):
        return (lambda v: v is None), (lambda v: False)
    if isinstance(annotation, type):
        from fn._tensor.tensor import Tensor

        if annotation is Tensor:
            from fn import _core

            return (lambda v: _core.is_tensor(v)), (lambda v: False)
        dispatchable = _is_dispatchable_type(annotation)
        return (lambda v: isinstance(v, annotation)), (lambda v: dispatchable and isinstance(v, annotation))
    raise TypeError(f"Type annotation {annotation} is not currently supported by dispatch.")


def _make_check(signature: Dict[str, Any]) -> Callable[[inspect.BoundArguments], bool]:
    checks = {name: _checker(t) for name, t in signature.items()}

    def check(bound: inspect.BoundArguments) -> bool:
        found = False
        for name, (matches, dispatchable) in checks.items():
            if name not in bound.arguments:
                return False
            v = bound.arguments[name]
            if not matches(v):
                return False
            found = found or dispatchable(v)
        return found

    return check


def _annotation_has_dispatchable(t: Any) -> bool:
    if _is_dispatchable_type(t):
        return True
    return any(_annotation_has_dispatchable(a) for a in typing.get_args(t))


# ---- public registration API -------------------------------------------------------------------


def _check_api(api: Callable) -> None:
    if not hasattr(api, "_fn_dispatchers"):
        raise ValueError(f"{api} does not support dispatch.")


def _add_name_scope_wrapper(handler: Callable, api_sig: inspect.Signature) -> Callable:
    """A handler that elides the API's ``name`` parameter gets one (dropped), as TF allows."""
    if "name" not in api_sig.parameters:
        return handler
    params = inspect.signature(handler).parameters
    if "name" in params or any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return handler
    name_index = list(api_sig.parameters).index("name")

    @functools.wraps(handler)
    def with_name(*args: Any, **kwargs: Any) -> Any:
        if name_index < len(args):
            args = args[:name_index] + args[name_index + 1 :]
        else:
            kwargs.pop("name", None)
        return handler(*args, **kwargs)

    with_name.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        list(params.values())[:name_index] + [api_sig.parameters["name"]] + list(params.values())[name_index:]
    )
    return with_name


def _check_signature(api_sig: inspect.Signature, handler: Callable) -> None:
    sig = inspect.signature(handler)
    kinds = [p.kind for p in sig.parameters.values()]
    if kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
        return
    ok = len(api_sig.parameters) == len(sig.parameters) and all(
        a.name == b.name and a.kind == b.kind for a, b in zip(api_sig.parameters.values(), sig.parameters.values())
    )
    if not ok:
        raise ValueError(f"Dispatch function's signature {sig} does not match API's signature {api_sig}.")


def dispatch_for_api(api: DispatchWrapper, *signatures: Dict[str, Any]) -> Callable:
    """``tf.experimental.dispatch_for_api``: a decorator registering a function to run instead of
    ``api`` when the arguments match its type annotations (or the given ``signatures``)."""
    _check_api(api)
    api_sig = _signature(api)

    def decorator(handler: Callable) -> Callable:
        if not callable(handler):
            raise TypeError(f"Expected dispatch_target to be callable; got {handler!r}")
        target = _add_name_scope_wrapper(handler, api_sig)
        _check_signature(api_sig, target)
        sigs = list(signatures)
        if not sigs:
            annotated = {
                n: p.annotation
                for n, p in inspect.signature(handler).parameters.items()
                if p.annotation is not inspect.Parameter.empty
            }
            hints = typing.get_type_hints(handler) if annotated else {}
            sigs = [{n: hints.get(n, t) for n, t in annotated.items()}]
        for sig in sigs:
            for name in sig:
                if name not in api_sig.parameters:
                    raise ValueError(
                        f"Dispatch signature names parameter {name!r}, which {api.__name__} does not have."
                    )
            api._fn_dispatchers.append(_Dispatcher(target, _make_check(sig)))
        _registrations.setdefault(id(handler), []).append((api, target))
        return handler

    return decorator


_registrations: Dict[int, List[Tuple[DispatchWrapper, Any]]] = {}
_elementwise: Dict[str, List[Tuple[Callable, Callable]]] = {"unary": [], "binary": []}


# The public package, handed over by install() (fn's __init__ calls it last): the elementwise API
# names are paths in it, and importing it from here would close an import circle.
_ROOT: Any = None


def _elementwise_api(name: str) -> Optional[DispatchWrapper]:
    obj: Any = _ROOT
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if hasattr(obj, "_fn_dispatchers") else None


def _first_param(api: Callable) -> List[str]:
    return list(_signature(api).parameters)


def dispatch_for_unary_elementwise_apis(x_type: Any) -> Callable:
    """``tf.experimental.dispatch_for_unary_elementwise_apis``: ``handler(api_func, x)`` runs for
    every unary elementwise API called with an ``x`` of ``x_type`` (``api_func`` has the call's
    other arguments bound)."""
    x_matches, x_dispatchable = _checker(x_type)

    def decorator(handler: Callable) -> Callable:
        for name in UNARY_ELEMENTWISE_APIS:
            api = _elementwise_api(name)
            if api is None:
                continue
            x_name = _first_param(api)[0]

            def check(bound: inspect.BoundArguments, x_name: str = x_name) -> bool:
                v = bound.arguments.get(x_name)
                return x_matches(v) and x_dispatchable(v)

            def target(*args: Any, _api: DispatchWrapper = api, _x: str = x_name, **kwargs: Any) -> Any:
                bound = _signature(_api).bind(*args, **kwargs)
                x = bound.arguments.pop(_x)
                return handler(functools.partial(_api._fn_dispatch_api, **bound.arguments), x)

            api._fn_dispatchers.append(_Dispatcher(target, check))
            _registrations.setdefault(id(handler), []).append((api, target))
        return handler

    return decorator


def _register_binary(names: List[str], x_type: Any, y_type: Any) -> Callable:
    xm, xd = _checker(x_type)
    ym, yd = _checker(y_type)

    def decorator(handler: Callable) -> Callable:
        for name in names:
            api = _elementwise_api(name)
            if api is None:
                continue
            x_name, y_name = _first_param(api)[:2]

            def check(bound: inspect.BoundArguments, xn: str = x_name, yn: str = y_name) -> bool:
                x, y = bound.arguments.get(xn), bound.arguments.get(yn)
                return xm(x) and ym(y) and (xd(x) or yd(y))

            def target(
                *args: Any, _api: DispatchWrapper = api, _xn: str = x_name, _yn: str = y_name, **kwargs: Any
            ) -> Any:
                bound = _signature(_api).bind(*args, **kwargs)
                x, y = bound.arguments.pop(_xn), bound.arguments.pop(_yn)
                return handler(functools.partial(_api._fn_dispatch_api, **bound.arguments), x, y)

            api._fn_dispatchers.append(_Dispatcher(target, check))
            _registrations.setdefault(id(handler), []).append((api, target))
        return handler

    return decorator


def dispatch_for_binary_elementwise_apis(x_type: Any, y_type: Any) -> Callable:
    """``tf.experimental.dispatch_for_binary_elementwise_apis``: ``handler(api_func, x, y)`` for
    every binary elementwise API whose ``x`` and ``y`` match (at least one of a dispatchable type)."""
    return _register_binary(BINARY_ELEMENTWISE_APIS, x_type, y_type)


def dispatch_for_binary_elementwise_assert_apis(x_type: Any, y_type: Any) -> Callable:
    """``tf.experimental.dispatch_for_binary_elementwise_assert_apis``: ``handler(assert_func, x, y)``
    for the binary ``tf.debugging`` asserts (``assert_equal``, ``assert_less``, ...)."""
    return _register_binary(BINARY_ELEMENTWISE_ASSERT_APIS, x_type, y_type)


def unregister_dispatch_for(dispatch_target: Callable) -> None:
    """``tf.experimental.unregister_dispatch_for``: removes every registration of the target."""
    entries = _registrations.pop(id(dispatch_target), None)
    if not entries:
        raise ValueError(f"Function {dispatch_target} was not registered using a `@dispatch_for_*` decorator.")
    for api, target in entries:
        api._fn_dispatchers[:] = [d for d in api._fn_dispatchers if d.handler is not target]


def install(root: Any) -> None:
    """Wraps each public op function once (the same wrapper under all its names); ``root`` is the
    public package the elementwise API names are resolved in."""
    global _ROOT
    _ROOT = root
    wrapped: Dict[int, Callable] = {}
    for mod_name in _MODULES:
        mod = sys.modules.get(mod_name)
        if mod is None:
            continue
        for name, obj in list(vars(mod).items()):
            if name.startswith("_") or not inspect.isfunction(obj) or hasattr(obj, "_fn_dispatchers"):
                continue
            module = getattr(obj, "__module__", "") or ""
            if not (module.startswith("fn._ops.") or module.startswith("fn._sparse")) or module in _NOT_APIS:
                continue
            w = wrapped.get(id(obj))
            if w is None:
                w = wrapped[id(obj)] = _wrap(obj)
            setattr(mod, name, w)
