"""``ConcreteFunction``: one traced graph of a Function, called with TF's binding rules
(structured, then flat by TensorSpec names) and introspected as TF's (inputs, outputs, variables)."""
from __future__ import annotations

import inspect
from typing import Any, Dict, List, Sequence, Tuple

from fn import _core
from fn._function.func_graph import FuncGraph
from fn._function.function_args import (_FlattenedSpec, _flatten_tensors, _is_variable, _is_variable_leaf, _Signature,
                               _walk, binding_spec)
from fn._function.function_type import AtomicFunction, FunctionType, function_type_of
from fn._function.input_signature import _CastError
from fn._tensor.tensor_spec import TensorSpec
from fn._autodiff.tape import _VARIABLES_BY_HANDLE


def _spec_text(v: Any) -> str:
    if isinstance(v, TensorSpec) or _core.is_tensor(v):
        return f"{v.dtype.name} Tensor, shape={v.shape}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_spec_text(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_spec_text(x)}" for k, x in v.items()) + "}"
    return repr(v)


class ConcreteFunction:
    """One traced graph of a Function, callable with tensors (``tf.types.experimental.ConcreteFunction``)."""

    def __init__(self, core: Any, graph: FuncGraph, function_name: str, signature: _Signature,
                 pos_values: tuple, kw_values: dict, arg_names: List[str], structured_outputs: Any,
                 output_leaves: List[Any], variables: Sequence[Any] = ()) -> None:
        self._core = core
        self.graph = graph
        self._function_name = function_name
        self._signature = signature
        self._pos_values = pos_values      # canonical args with TensorSpecs for tensor leaves
        self._kw_values = kw_values
        self._arg_names = arg_names
        self.structured_outputs = structured_outputs
        self._output_leaves = output_leaves  # per output position: True if tensor, else constant
        self._variables = list(variables)
        graph.structured_outputs = structured_outputs

    # -- calling
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call_impl(args, kwargs)

    def _call_impl(self, args: tuple, kwargs: dict) -> Any:
        # TF binds to the Python signature first, then to the flat signature of tensors.
        try:
            flat = self._bind_structured(args, kwargs)
        except _CastError as structured_error:
            try:
                flat = self._bind_flat(args, kwargs)
            except _CastError as flat_error:
                note = getattr(structured_error, "guide_note", "")
                raise TypeError(
                    f"Binding inputs to tf.function failed due to `{structured_error}`. Received args: {args!r} "
                    f"and kwargs: {kwargs!r} for signature: {self._signature_text()}.\n"
                    f"Fallback to flat signature also failed due to: {flat_error}" + note) from None
        return self._pack_outputs(self._core.call(flat))

    def _expected(self) -> Tuple[List[str], Dict[str, Any]]:
        names = list(self._arg_names) + list(self._kw_values)
        expected = dict(zip(self._arg_names, self._pos_values))
        expected.update(self._kw_values)
        return names, expected

    def _bind_structured(self, args: tuple, kwargs: dict) -> List[Any]:
        """Every parameter, positionally or by keyword, Python values as traced."""
        names, expected = self._expected()
        spec = self.__dict__.get("_binding_spec")
        if spec is None:  # the FunctionType's parameters (positional-only with *args, as TF), all required
            spec = self._binding_spec = binding_spec(list(self.function_type.parameters.values()))
        bound = spec.bind(args, kwargs)
        if bound is None:  # Python's message, as TF's
            P = inspect.Parameter
            sig = inspect.Signature([P(p.name, p.kind) for p in self.function_type.parameters.values()])
            try:
                sig.bind(*args, **kwargs)
            except TypeError as e:
                raise _CastError(str(e)) from None
            raise _CastError(f"{self._function_name}: the call does not bind to {sig}")
        pos, kw = bound
        given = dict(zip(spec.positional, pos))
        given.update(kw)
        flat: List[Any] = []
        for n in names:
            self._match(n, expected[n], given[n], flat)
        return flat

    def _flat_names(self) -> List[str]:
        """The tensor inputs' names: their TensorSpec's name, else the parameter's."""
        names, expected = self._expected()
        out: List[str] = []
        for n in names:
            leaves = [x for x in _flatten_tensors(expected[n]) if isinstance(x, TensorSpec) or _is_variable_leaf(x)]
            out.extend(getattr(x, "name", None) or (n if j == 0 else f"{n}_{j}") for j, x in enumerate(leaves))
        return out

    def _bind_flat(self, args: tuple, kwargs: dict) -> List[Any]:
        """TF's flat signature: the tensor inputs only, positionally or by name."""
        names, expected = self._expected()
        if any(hasattr(type(x), "__fn_composite__") for n in names for x in _flatten_tensors(expected[n])):
            raise _CastError(f"{self._function_name} has composite inputs and has no flat signature")
        flat_names = self._flat_names()
        fname = f"{self._function_name}({', '.join(flat_names)})"
        if len(args) > len(flat_names):
            raise _CastError(f"{fname} takes {len(flat_names)} positional arguments, got {len(args)}.")
        given = dict(zip(flat_names, args))
        unexpected = sorted(k for k in kwargs if k not in flat_names)
        if unexpected:
            raise _CastError(f"{fname} got unexpected keyword arguments: {', '.join(unexpected)}.")
        for k, v in kwargs.items():
            if k in given:
                raise _CastError(f"{fname} got two values for '{k}'.")
            given[k] = v
        missing = [n for n in flat_names if n not in given]
        if missing:
            raise _CastError(f"{fname} missing required arguments: {', '.join(missing)}.")
        out = []
        specs = [x for n in names for x in _flatten_tensors(expected[n])
                 if isinstance(x, TensorSpec) or _is_variable_leaf(x)]
        for i, n in enumerate(flat_names):
            v = given[n]
            if _is_variable_leaf(specs[i]):
                if not (_is_variable(v) and v.__tf_tracing_type__(None) == specs[i]):
                    raise _CastError(f"{fname}: expected argument #{i}(zero-based) to be a Variable matching "
                                     f"{specs[i]!r}; got {type(v).__name__} ({v!r}).")
                out.append(v._fn_handle)
                continue
            if not _core.is_tensor(v):
                if not hasattr(v, "__fn_tensor__"):
                    raise _CastError(f"{fname}: expected argument #{i}(zero-based) to be a Tensor; got "
                                     f"{type(v).__name__} ({v!r}).")
                v = v.__fn_tensor__(None)
            if not v._is_eager and (v.dtype != specs[i].dtype or not v.shape.is_compatible_with(specs[i].shape)):
                # While tracing the flat signature checks the spec too (eagerly the kernel does).
                raise _CastError(f"{fname}: expected argument #{i}(zero-based) to be a "
                                 f"{specs[i]!r}; got {TensorSpec(v.shape, v.dtype)!r}.")
            out.append(v)
        return out

    def _signature_text(self) -> str:
        return str(self.function_type)

    @property
    def function_type(self) -> FunctionType:
        """TF's ``FunctionType``: ``(a: TensorSpec(...)) -> TensorSpec(...)``."""
        return function_type_of(self)

    @property
    def inference_fn(self) -> AtomicFunction:
        """TF's ``AtomicFunction``: the graph called with the flat tensor inputs."""
        return AtomicFunction(self)

    def _match(self, name: str, expected: Any, got: Any, flat: List[Any]) -> None:
        if _is_variable_leaf(expected):
            if _is_variable(got) and got.__tf_tracing_type__(None) == expected:
                flat.append(got._fn_handle)
                return
            raise _CastError(f"Can not cast {got!r} to {expected!r}")
        if isinstance(expected, TensorSpec):
            if not _core.is_tensor(got):
                try:
                    got = _core.convert_to_tensor(got, None, expected.dtype)
                except Exception:
                    raise _CastError(f"Can not cast {got!r} to {expected!r}") from None
            elif got.dtype != expected.dtype or not got.shape.is_compatible_with(expected.shape):
                raise _CastError(f"Can not cast {TensorSpec(got.shape, got.dtype)!r} to {expected!r}")
            flat.append(got)
            return
        if hasattr(type(expected), "__fn_composite__"):
            self._match_composite(expected, got, flat)
            return
        if isinstance(expected, _FlattenedSpec) and type(got) is expected.cls:
            metadata, components = got.__tf_flatten__()
            if metadata == expected.metadata and len(components) == len(expected.components):
                for e, g in zip(expected.components, components):
                    self._match(name, e, g, flat)
                return
        if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)) and len(expected) == len(got):
            for e, g in zip(expected, got):
                self._match(name, e, g, flat)
            return
        if isinstance(expected, dict) and isinstance(got, dict) and set(expected) == set(got):
            for k in sorted(expected, key=repr):
                self._match(name, expected[k], got[k], flat)
            return
        if got is expected or (type(got) is type(expected) and got == expected):
            return
        if isinstance(expected, dict) and not isinstance(got, dict):
            what = "a Dict type."   # TF's Dict/Tuple/List trace types name the container
        elif isinstance(expected, (list, tuple)) and not isinstance(got, (list, tuple)):
            what = f"{type(expected).__name__} type."
        else:
            what = f"Literal[{expected!r}]"
        err = _CastError(f"Can not cast {got!r} to {what}")
        # The guide's wording (2.14) follows TF's.
        err.guide_note = (f"\nConcreteFunction {self._summary(with_defaults=False)} was constructed with "
                          f"{type(expected).__name__} value {expected!r} in {name}, but was called with "
                          f"{type(got).__name__} value {got!r}.")
        raise err

    def _match_composite(self, expected: Any, got: Any, flat: List[Any]) -> None:
        """A composite argument (RaggedTensor, SparseTensor, ...) against its traced spec: TF
        compares the flat components, so a different kind or nesting is a structure error and a
        component of another dtype names that component."""
        want = list(expected.__fn_composite__()[1])
        parts = list(got.__fn_composite__()[1]) if hasattr(type(got), "__fn_composite__") else None
        if parts is None or len(parts) != len(want) or type(got.__fn_composite__()[0]) is not type(expected):
            raise _CastError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: type={type(want).__name__} str={want!r}\n\n"
                f"Second structure: type={type(got).__name__} str={got!r}")
        for w, part in zip(want, parts):
            if part.dtype != w.dtype or not part.shape.is_compatible_with(w.shape):
                raise _CastError(f"Can not cast {TensorSpec(part.shape, part.dtype)!r} to {w!r}")
        if not got.__fn_composite__()[0].is_subtype_of(expected):
            raise _CastError(f"Can not cast {got!r} to {expected!r}")
        flat.extend(parts)

    def _pack_outputs(self, flat: Sequence[Any]) -> Any:
        it = iter(flat)
        return _walk(self.structured_outputs, lambda _: next(it))

    # -- introspection
    @property
    def name(self) -> bytes:
        """The graph function's name, as bytes (TF: ``b"__inference_f_12"``)."""
        return self._core.name.encode()

    @property
    def captured_inputs(self) -> List[Any]:
        return list(self._core.captures)

    @property
    def inputs(self) -> List[Any]:
        """The graph's placeholders: the tensor arguments, then the captured values."""
        return list(self.graph.inputs)

    @property
    def outputs(self) -> List[Any]:
        return list(self.graph.outputs)

    @property
    def variables(self) -> tuple:
        """Variables created while tracing and those captured, in capture order (TF's)."""
        out = list(self._variables)
        for c in self._core.captures:
            v = _VARIABLES_BY_HANDLE.get(c._id) if c.dtype.name == "resource" else None
            if v is not None and not any(v is o for o in out):
                out.append(v)
        return tuple(out)

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.variables if getattr(v, "trainable", True))

    @property
    def structured_input_signature(self) -> Tuple[tuple, dict]:
        def spec(v: Any, name: str) -> Any:
            if isinstance(v, TensorSpec):
                return TensorSpec(v.shape, v.dtype, v.name or name)
            return v
        args = tuple(_walk(v, lambda s, n=n: spec(s, n)) for v, n in zip(self._pos_values, self._arg_names))
        kwargs = {k: _walk(v, lambda s, k=k: spec(s, k)) for k, v in self._kw_values.items()}
        return args, kwargs

    @property
    def output_dtypes(self) -> Any:
        return _walk(self.structured_outputs, lambda t: t.dtype)

    @property
    def output_shapes(self) -> Any:
        return _walk(self.structured_outputs, lambda t: t.shape)

    def _summary(self, with_defaults: bool = True) -> str:
        parts = []
        for name, v in zip(self._arg_names, self._pos_values):
            if with_defaults and not _flatten_tensors(v):
                parts.append(f"{name}={v!r}")
            else:
                parts.append(name)
        for k, v in self._kw_values.items():
            parts.append(f"{k}={v!r}" if with_defaults and not _flatten_tensors(v) else k)
        return f"{self._function_name}({', '.join(parts)})"

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        lines = [self._summary()]
        args = [(n, v) for n, v in zip(self._arg_names, self._pos_values) if _flatten_tensors(v)]
        args += [(k, v) for k, v in self._kw_values.items() if _flatten_tensors(v)]
        if args:
            lines.append("  Args:")
            lines.extend(f"    {n}: {_spec_text(v)}" for n, v in args)
        lines.append("  Returns:")
        lines.append(f"    {_spec_text(self.structured_outputs)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return "ConcreteFunction " + self.pretty_printed_signature()

    def _repr_svg_(self) -> str:
        return self.graph._repr_svg_()

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self._summary()} at 0x{id(self):X}>"
