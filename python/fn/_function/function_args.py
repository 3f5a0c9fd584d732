"""Arguments of ``fn.function``: walking nested values for their tensor leaves (in the order
``_core.make_key`` visits them) and binding calls to the Python signature."""
from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Dict, List, Sequence, Tuple

from fn import _core
from fn._tensor.tensor_spec import TensorSpec


def _walk(value: Any, fn: Callable[[Any], Any]) -> Any:
    """Rebuilds ``value`` replacing tensor/TensorSpec leaves by ``fn(leaf)``, visiting them in
    the same order as ``_core.make_key`` (dicts by ``repr`` of their keys)."""
    if _core.is_tensor(value) or isinstance(value, TensorSpec) or _is_variable_leaf(value):
        return fn(value)
    if type(value).__module__ == "numpy" and type(value).__name__ == "ndarray":
        return fn(_core.to_eager(value, None))   # a tensor to tf.function, as in TF
    if hasattr(type(value), "__fn_composite__"):
        return _walk_composite(value, fn)
    if isinstance(value, _FlattenedSpec):
        return _FlattenedSpec(value.cls, value.metadata, [_walk(c, fn) for c in value.components])
    if hasattr(type(value), "__tf_flatten__") and not isinstance(value, type):
        metadata, components = value.__tf_flatten__()
        new = [_walk(c, fn) for c in components]
        if any(isinstance(x, TensorSpec) for x in _flatten_tensors(new)):
            return _FlattenedSpec(type(value), metadata, new)
        return type(value).__tf_unflatten__(metadata, tuple(new))
    if isinstance(value, list):
        return [_walk(v, fn) for v in value]
    if isinstance(value, tuple):
        items = [_walk(v, fn) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if type(value) is dict:
        out = {k: None for k in value}
        for k in sorted(value, key=repr):
            out[k] = _walk(value[k], fn)
        return out
    return value


class _FlattenedSpec:
    """The trace type of a ``__tf_flatten__`` object whose tensors are TensorSpecs: its class,
    metadata and components (``__tf_unflatten__`` may not accept specs)."""

    def __init__(self, cls: type, metadata: Any, components: List[Any]) -> None:
        self.cls, self.metadata, self.components = cls, metadata, list(components)

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, _FlattenedSpec) and self.cls is other.cls and self.metadata == other.metadata
                and self.components == other.components)

    def __hash__(self) -> int:
        return hash((self.cls, repr(self.metadata)))

    def __repr__(self) -> str:
        return f"{self.cls.__qualname__}[{self.metadata!r}]({', '.join(repr(c) for c in self.components)})"


_placeholders = threading.local()   # .on while _trace makes the placeholders of a call


def _walk_composite(value: Any, fn: Callable[[Any], Any]) -> Any:
    """A value made of tensors (``__fn_composite__() -> (trace type, components)``, fn.data's
    datasets and iterators, and their specs): ``fn`` maps the components; the result is the
    trace type when they became TensorSpecs, else the value rebuilt from the new components
    (a dataset argument rebuilt from its placeholder while tracing)."""
    spec, parts = value.__fn_composite__()
    if getattr(_placeholders, "on", False) and hasattr(spec, "_component_specs") and spec is not value:
        # Tracing: placeholders take the trace type's component specs (a SparseTensor's
        # indices are [None, rank]), so one trace serves every value of that type.
        parts = spec._component_specs()
    new = [fn(p) for p in parts]
    if all(isinstance(p, TensorSpec) for p in new):
        return spec
    if all(_core.is_tensor(p) for p in new):
        return spec._fn_from_components(new)
    return spec


def _is_variable(value: Any) -> bool:
    return _core.is_tensor(getattr(value, "_fn_handle", None))


def _is_variable_leaf(value: Any) -> bool:
    """A Variable argument (its handle is a graph input) or its trace type."""
    return getattr(type(value), "_fn_variable", False) or type(value).__name__ == "_VariableType"


def _flatten_tensors(value: Any) -> List[Any]:
    out: List[Any] = []
    _walk(value, out.append)
    return out


def binding_spec(params: Sequence[Any]) -> Any:
    """The one binding of calls to these parameters (``inspect.Parameter``-like: name, kind and,
    where given, default), as ``_core.BindingSpec``: Function.__call__'s C++ fast path, the Python
    slow path (``_Signature.bind``) and ``ConcreteFunction``'s structured binding all run it.
    Canonical form (TF's ``FunctionType.bind_inputs``): the positional values in parameter order
    (defaults applied) then the ``*args`` items; the keyword-only values then the ``**kwargs`` items."""
    P = inspect.Parameter
    positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    kwonly = [p for p in params if p.kind is P.KEYWORD_ONLY]

    def default(p: Any) -> Any:
        return getattr(p, "default", P.empty)

    return _core.BindingSpec(
        positional=[p.name for p in positional],
        positional_only=sum(p.kind is P.POSITIONAL_ONLY for p in positional),
        defaults=tuple(default(p) for p in positional if default(p) is not P.empty),
        var_positional=any(p.kind is P.VAR_POSITIONAL for p in params),
        kwonly=[p.name for p in kwonly],
        kwonly_defaults=[None if default(p) is P.empty else default(p) for p in kwonly],
        kwonly_required=[default(p) is P.empty for p in kwonly],
        var_keyword=any(p.kind is P.VAR_KEYWORD for p in params),
    )


class _Signature:
    """The Python signature of the traced function and how calls bind to it (by its
    ``binding_spec``; ``inspect`` only words the TypeError of a call that does not bind)."""

    def __init__(self, python_function: Callable, skip_first: bool = False) -> None:
        try:
            sig = inspect.signature(python_function)
        except (TypeError, ValueError):
            sig = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                     inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
        params = list(sig.parameters.values())
        if skip_first and params:
            params = params[1:]
        self.sig = sig.replace(parameters=params)
        self.params = params
        P = inspect.Parameter
        self.positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
        self.var_positional = next((p for p in params if p.kind == P.VAR_POSITIONAL), None)
        self.spec = binding_spec(params)
        self._names = [p.name for p in self.positional]

    def bind(self, args: tuple, kwargs: dict, name: str, raw: bool = False) -> Tuple[tuple, dict, List[str]]:
        """The canonical (positional values, keyword values) of a call and the positional values'
        names (``args_0``... for ``*args`` items); TF's TypeError where Python's binding fails."""
        bound = self.spec.bind(args, kwargs)
        if bound is not None:
            pos, kw = bound
            names = self._names
            if len(pos) > len(names):
                var = self.var_positional.name  # type: ignore[union-attr]
                names = names + [f"{var}_{i}" for i in range(len(pos) - len(names))]
            return pos, kw, list(names)
        return self._bind_inspect(args, kwargs, raw)

    def _bind_inspect(self, args: tuple, kwargs: dict, raw: bool) -> Tuple[tuple, dict, List[str]]:
        """The call the spec refused, bound by ``inspect`` for Python's TypeError text."""
        try:
            bound = self.sig.bind(*args, **kwargs)
        except TypeError as e:
            if raw:
                raise
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Received args: {args!r} and "
                            f"kwargs: {kwargs!r} for signature: {self._text()}.") from None
        bound.apply_defaults()  # (a call the spec refuses always fails here; kept total anyway)
        pos: List[Any] = []
        names: List[str] = []
        kw: Dict[str, Any] = {}
        P = inspect.Parameter
        for p in self.params:
            v = bound.arguments.get(p.name, p.default)
            if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
                pos.append(v)
                names.append(p.name)
            elif p.kind == P.VAR_POSITIONAL:
                for i, x in enumerate(v):
                    pos.append(x)
                    names.append(f"{p.name}_{i}")
            elif p.kind == P.KEYWORD_ONLY:
                kw[p.name] = v
            else:
                kw.update(v)
        return tuple(pos), kw, names

    def _text(self) -> str:
        """The signature as TF prints it in binding errors (defaults hidden)."""
        class Captured:
            def __repr__(self) -> str:
                return "<captured_default_value>"
        params = [p.replace(default=Captured()) if p.default is not inspect.Parameter.empty else p
                  for p in self.params]
        return str(self.sig.replace(parameters=params))

    def call_args(self, pos: tuple, kw: dict) -> Tuple[list, dict]:
        """Splits canonical values back into a call of the Python function."""
        n = len(self.positional)
        args = list(pos[:n])
        if self.var_positional is not None:
            args.extend(pos[n:])
        return args, dict(kw)


def _to_spec(leaf: Any) -> Any:
    if _is_variable_leaf(leaf):
        return leaf.__tf_tracing_type__(None) if hasattr(leaf, "__tf_tracing_type__") else leaf
    return leaf if isinstance(leaf, TensorSpec) else TensorSpec(leaf.shape, leaf.dtype)
