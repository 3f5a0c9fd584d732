"""``ConcreteFunction.function_type`` (TF's ``FunctionType``) and ``.inference_fn`` (TF's
``AtomicFunction``): the traced signature as TensorFlow 2.21 prints it, ``(a: TensorSpec(...)) ->
TensorSpec(...)``, and the function that runs the graph on its flat inputs."""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional

from fn import _core
from fn._tensor.tensor_spec import TensorSpec
from fn._function.function_args import _to_spec, _walk

_P = inspect.Parameter


def type_text(v: Any) -> str:
    """A value's trace type in TF's notation: ``TensorSpec(...)``, ``Literal[2]``, ``List[...]``,
    ``Tuple[...]``, ``Dict[[key, value], ...]``."""
    if isinstance(v, TensorSpec):
        return repr(v)
    if _core.is_tensor(v):
        return repr(TensorSpec(v.shape, v.dtype))
    if hasattr(v, "__tf_tracing_type__") and not isinstance(v, (list, tuple, dict)):
        return repr(v.__tf_tracing_type__(None))
    if hasattr(type(v), "__fn_composite__"):
        return repr(v)
    if isinstance(v, list):
        return "List[" + ", ".join(type_text(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "Tuple[" + ", ".join(type_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {type_text(x)}]" for k, x in v.items()) + "]"
    return f"Literal[{v!r}]"


class Parameter:
    """One parameter of a ``FunctionType`` (TF's ``function_type.Parameter``)."""

    def __init__(self, name: str, kind: Any, optional: bool, type_constraint: Any) -> None:
        self.name, self.kind, self.optional, self.type_constraint = name, kind, optional, type_constraint

    def __repr__(self) -> str:
        return (
            f"Parameter(name={self.name}, kind={self.kind}, optional={self.optional}, "
            f"type_constraint={type_text(self.type_constraint)})"
        )


class FunctionType:
    """The signature of a traced function (TF's ``tf.types.experimental.FunctionType``):
    ``str`` is ``(a: TensorSpec(...)) -> TensorSpec(...)``, ``repr`` the long form with
    ``Input Parameters``, ``Output Type`` and ``Captures``."""

    def __init__(self, parameters: List[Parameter], output: Any, captures: Optional[Dict[int, Any]] = None) -> None:
        self.parameters = {p.name: p for p in parameters}
        self.output = output
        self.captures = dict(captures or {})

    def __str__(self) -> str:
        parts: List[str] = []
        params = list(self.parameters.values())
        for i, p in enumerate(params):
            if p.kind == _P.KEYWORD_ONLY and (i == 0 or params[i - 1].kind != _P.KEYWORD_ONLY):
                parts.append("*")
            parts.append(f"{p.name}: {type_text(p.type_constraint)}")
            if p.kind == _P.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind != _P.POSITIONAL_ONLY):
                parts.append("/")
        return "(" + ", ".join(parts) + f") -> {type_text(self.output)}"

    def __repr__(self) -> str:
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind}): {type_text(p.type_constraint)}" for p in self.parameters.values()]
        if not self.parameters:
            lines.append("  None")
        lines += ["Output Type:", f"  {type_text(self.output)}", "Captures:"]
        lines += [f"  {k}: {type_text(v)}" for k, v in self.captures.items()] or ["  None"]
        return "\n".join(lines)


def function_type_of(concrete: Any) -> FunctionType:
    """The ``FunctionType`` of a ``ConcreteFunction``: its parameters with their kinds, the
    traced values (TensorSpecs keep only a name the caller gave), outputs and captures."""
    sig = concrete._signature  # None for a ConcreteFunction loaded from a SavedModel
    kinds = {p.name: p.kind for p in sig.params} if sig is not None else {}
    varargs = _P.VAR_POSITIONAL in kinds.values()  # TF: then every positional is positional-only
    params = []
    for name, value in zip(concrete._arg_names, concrete._pos_values):
        kind = _P.POSITIONAL_ONLY if varargs else kinds.get(name, _P.POSITIONAL_ONLY)
        params.append(Parameter(name, _P.POSITIONAL_ONLY if kind == _P.VAR_POSITIONAL else kind, False, value))
    for name, value in concrete._kw_values.items():
        kind = kinds.get(name, _P.KEYWORD_ONLY)
        params.append(Parameter(name, _P.KEYWORD_ONLY if kind == _P.VAR_KEYWORD else kind, False, value))
    captures = {id(c): TensorSpec(c.shape, c.dtype) for c in concrete._core.captures}
    return FunctionType(params, _walk(concrete.structured_outputs, _to_spec), captures)


class AtomicFunction:
    """``ConcreteFunction.inference_fn`` (TF's ``AtomicFunction``): the traced graph called with its
    flat tensor inputs, returning the structured outputs."""

    def __init__(self, concrete: Any) -> None:
        self._concrete = concrete

    @property
    def name(self) -> bytes:
        return self._concrete.name

    @property
    def function_type(self) -> FunctionType:
        return self._concrete.function_type

    @property
    def graph(self) -> Any:
        return self._concrete.graph

    def __call__(self, *args: Any) -> Any:
        if self._concrete._core.captures:
            raise ValueError("The FunctionType defines captured inputs. Use call_with_captures instead.")
        return self.call_with_captures(args, {}, [])

    def call_with_captures(self, args: Any, kwargs: Any, captures: Any) -> Any:
        return self._concrete._call_impl(tuple(args), dict(kwargs or {}))

    def __repr__(self) -> str:
        return f"AtomicFunction(name={self.name!r},\nfunction_type={self.function_type!r})"
