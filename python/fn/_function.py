"""``fn.function``: trace a Python function into graphs, cache them by trace type, run them in C++.

Mirrors ``tf.function``. The cached-call fast path (trace-type key, lookup, run) is C++
(``_core.FunctionBase.__call__``); this module runs only on a cache miss: binding arguments,
tracing, and building the ``ConcreteFunction``.
"""
from __future__ import annotations

import collections
import functools
import inspect
import numbers
import os
import sys
import threading
import time
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from fn import _core
from fn._tensor_spec import TensorSpec

_FN_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_location() -> str:
    """File and line of the innermost frame outside fn itself (for leak and error messages)."""
    f = sys._getframe(1)
    while f is not None:
        fname = f.f_code.co_filename
        if not fname.startswith(_FN_DIR) and "importlib" not in fname:
            return f'  File "{fname}", line {f.f_lineno}, in {f.f_code.co_name}'
        f = f.f_back
    return "  <unknown>"


_core.set_location_provider(_user_location)


# ---------------------------------------------------------------- arguments

def _walk(value: Any, fn: Callable[[Any], Any]) -> Any:
    """Rebuilds ``value`` replacing tensor/TensorSpec leaves by ``fn(leaf)``, visiting them in
    the same order as ``_core.make_key`` (dicts by ``repr`` of their keys)."""
    if _core.is_tensor(value) or isinstance(value, TensorSpec):
        return fn(value)
    if hasattr(type(value), "__fn_composite__"):
        return _walk_composite(value, fn)
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


def _walk_composite(value: Any, fn: Callable[[Any], Any]) -> Any:
    """A value made of tensors (``__fn_composite__() -> (trace type, components)``, fn.data's
    datasets and iterators, and their specs): ``fn`` maps the components; the result is the
    trace type when they became TensorSpecs, else the value rebuilt from the new components
    (a dataset argument rebuilt from its placeholder while tracing)."""
    spec, parts = value.__fn_composite__()
    new = [fn(p) for p in parts]
    if all(isinstance(p, TensorSpec) for p in new):
        return spec
    if all(_core.is_tensor(p) for p in new):
        return spec._fn_from_components(new)
    return spec


def _flatten_tensors(value: Any) -> List[Any]:
    out: List[Any] = []
    _walk(value, out.append)
    return out


class _Signature:
    """The Python signature of the traced function and how calls bind to it (canonical form:
    positional values in parameter order, defaults applied; keyword-only and **kwargs apart)."""

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
        simple = all(p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) for p in params)
        self.fast_positional = len(self.positional) if simple else -1

    def bind(self, args: tuple, kwargs: dict, name: str) -> Tuple[tuple, dict, List[str]]:
        try:
            bound = self.sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}() {e}") from None
        bound.apply_defaults()
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

    def call_args(self, pos: tuple, kw: dict) -> Tuple[list, dict]:
        """Splits canonical values back into a call of the Python function."""
        n = len(self.positional)
        args = list(pos[:n])
        if self.var_positional is not None:
            args.extend(pos[n:])
        return args, dict(kw)


# ---------------------------------------------------------------- graphs

class NodeDef:
    """One node of ``Graph.as_graph_def()`` (``tf.compat.v1.NodeDef``'s fields we support)."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name: str, op: str, inputs: List[str], attr: Dict[str, str]) -> None:
        self.name, self.op, self.input, self.attr, self.device = name, op, inputs, attr, ""

    def __repr__(self) -> str:
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """``Graph.as_graph_def()``: the nodes, in order."""

    def __init__(self, node: List[NodeDef]) -> None:
        self.node = node

    def __repr__(self) -> str:
        return "\n".join(f"node {{ name: {n.name!r} op: {n.op!r} input: {n.input!r} }}" for n in self.node)


class Operation:
    """A node of a graph, as ``tf.Operation`` shows it (name, type, inputs, outputs)."""

    def __init__(self, graph: "FuncGraph", index: int) -> None:
        self._graph, self._index = graph, index

    @property
    def name(self) -> str:
        return self._graph._core.node_name(self._index)

    @property
    def type(self) -> str:
        return self._graph._core.node_op(self._index)

    @property
    def inputs(self) -> List[str]:
        return self._graph._core.node_inputs(self._index)

    def __repr__(self) -> str:
        return f"<fn.Operation '{self.name}' type={self.type}>"


class FuncGraph:
    """The graph of a ConcreteFunction (``tf.Graph``/FuncGraph view over the C++ graph)."""

    def __init__(self, core_graph: Any, name: str) -> None:
        self._core = core_graph
        self.name = name
        self.inputs: List[Any] = []
        self.outputs: List[Any] = []
        self.structured_outputs: Any = None

    def as_graph_def(self) -> GraphDef:
        g = self._core
        nodes = []
        for i in range(g.num_nodes()):
            attrs = {k: g.node_attr_text(i, k) for k in g.node_attr_names(i)}
            nodes.append(NodeDef(g.node_name(i), g.node_op(i), list(g.node_inputs(i)), attrs))
        return GraphDef(nodes)

    def get_operations(self) -> List[Operation]:
        return [Operation(self, i) for i in range(self._core.num_nodes())]

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self.get_operations():
            if op.name == name:
                return op
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def to_text(self) -> str:
        """The graph as readable text, one node a line."""
        return self._core.to_text()

    def to_dot(self) -> str:
        """The graph in Graphviz DOT (sub-graphs of If/While as clusters)."""
        from fn import _visualize as visualize
        return visualize.to_dot(self, self.name)

    def _repr_svg_(self) -> str:
        """Notebooks render the graph as a picture."""
        from fn import _visualize as visualize
        return visualize.to_svg(self, self.name)

    def __repr__(self) -> str:
        return f"<fn.FuncGraph {self.name!r} with {self._core.num_nodes()} nodes>"


# ---------------------------------------------------------------- concrete functions

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
        names = list(self._arg_names) + list(self._kw_values)
        expected = dict(zip(self._arg_names, self._pos_values))
        expected.update(self._kw_values)
        tensor_params = [n for n in names if _flatten_tensors(expected[n])]
        if len(args) > len(tensor_params):
            # Structured call: positional values for every parameter, in order.
            if len(args) > len(names):
                raise TypeError(f"{self._summary(with_defaults=False)} takes {len(names)} arguments but "
                                f"{len(args)} were given.")
            given = dict(zip(names, args))
        else:
            # Flat call (TF's ConcreteFunction signature): positional values fill the tensor
            # parameters; Python parameters keep the values they were traced with.
            given = dict(zip(tensor_params, args))
        for k, v in kwargs.items():
            if k not in expected:
                flat = f"{self._function_name}({', '.join(tensor_params)})"
                raise TypeError(f"{flat} got unexpected keyword arguments: {', '.join(sorted(kwargs))}.")
            if k in given:
                raise TypeError(f"{self._summary(with_defaults=False)} got two values for argument {k!r}.")
            given[k] = v
        flat_values: List[Any] = []
        for n in names:
            if n in given:
                self._match(n, expected[n], given[n], flat_values)
            elif n in tensor_params:
                raise TypeError(f"{self._summary(with_defaults=False)} missing required argument: {n!r}.")
        return self._pack_outputs(self._core.call(flat_values))

    def _match(self, name: str, expected: Any, got: Any, flat: List[Any]) -> None:
        if isinstance(expected, TensorSpec):
            if not _core.is_tensor(got):
                got = _core.convert_to_tensor(got, None, expected.dtype)
            flat.append(got)
            return
        if hasattr(type(expected), "__fn_composite__"):
            if hasattr(type(got), "__fn_composite__"):
                got_spec, parts = got.__fn_composite__()
                if got_spec.is_subtype_of(expected):
                    flat.extend(parts)
                    return
            raise TypeError(f"ConcreteFunction {self._summary(with_defaults=False)} was constructed with "
                            f"{expected!r} in {name}, but was called with {got!r}.")
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
        raise TypeError(
            f"ConcreteFunction {self._summary(with_defaults=False)} was constructed with "
            f"{type(expected).__name__} value {expected!r} in {name}, but was called with "
            f"{type(got).__name__} value {got!r}.")

    def _pack_outputs(self, flat: Sequence[Any]) -> Any:
        it = iter(flat)
        return _walk(self.structured_outputs, lambda _: next(it))

    # -- introspection
    @property
    def name(self) -> str:
        return self._core.name

    @property
    def captured_inputs(self) -> List[Any]:
        return list(self._core.captures)

    @property
    def variables(self) -> List[Any]:
        return list(self._variables)

    @property
    def trainable_variables(self) -> List[Any]:
        return [v for v in self._variables if getattr(v, "trainable", True)]

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


# ---------------------------------------------------------------- Function

_trace_counter = [0]
_trace_counter_lock = threading.Lock()


def _next_trace_id() -> int:
    with _trace_counter_lock:
        _trace_counter[0] += 1
        return _trace_counter[0]


class Function(_core.FunctionBase):
    """A Python function traced into graphs per input signature (``tf.types.experimental.PolymorphicFunction``,
    what ``tf.function`` returns). Calls with a cached trace type run the graph from C++."""

    def __init__(self, python_function: Callable, name: Optional[str] = None,
                 input_signature: Optional[Sequence[Any]] = None, autograph: bool = True,
                 reduce_retracing: bool = False, jit_compile: Optional[bool] = None,
                 experimental_relax_shapes: Optional[bool] = None, max_cache_size: int = 0,
                 _bound_self: Any = None) -> None:
        super().__init__()
        if not callable(python_function):
            raise TypeError(f"fn.function expects a callable, got {python_function!r}")
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._reduce_retracing = bool(reduce_retracing or experimental_relax_shapes)
        self._jit_compile = jit_compile
        self._bound_self = _bound_self        # weakref to the instance of a bound method
        self._signature = _Signature(python_function, skip_first=_bound_self is not None)
        self._input_signature = None if input_signature is None else tuple(input_signature)
        if (self._input_signature is not None and self._signature.var_positional is None
                and len(self._input_signature) > len(self._signature.positional)):
            # TF 2.0 (the blog post, SPEC 5.1) ignored specs beyond the function's parameters.
            self._input_signature = self._input_signature[:len(self._signature.positional)]
        if self._input_signature is not None:
            self._validate_input_signature()
        self._fast_positional = -1 if self._input_signature is not None else self._signature.fast_positional
        if self._fast_positional >= 0:
            defaults = [p.default for p in self._signature.positional if p.default is not inspect.Parameter.empty]
            self._fast_defaults = tuple(defaults)
            self._param_names = [p.name for p in self._signature.positional
                                 if p.kind is not inspect.Parameter.POSITIONAL_ONLY]
            if len(self._param_names) != self._fast_positional:
                self._param_names = []   # positional-only parameters: keywords go the slow way
        if self._input_signature is not None and all(isinstance(s, TensorSpec) for s in self._input_signature) \
                and len(self._input_signature) == len(self._signature.positional):
            self._set_signature_fast(_core.make_key(tuple(self._input_signature))[0], list(self._input_signature))
        self._lock = threading.RLock()
        self._tracing_count = 0
        self._trace_time = 0.0
        self._converted: Optional[Callable] = None
        self._bound_functions: "weakref.WeakKeyDictionary[Any, Function]" = weakref.WeakKeyDictionary()
        self._created_variables: Optional[list] = None
        if isinstance(max_cache_size, bool) or not isinstance(max_cache_size, (int, numbers.Integral)):
            raise TypeError(f"max_cache_size must be an int, got {max_cache_size!r}")
        if max_cache_size < 0:
            raise ValueError(f"max_cache_size must be >= 0 (0: unbounded), got {max_cache_size}")
        if max_cache_size:
            self._cache_set_max_size(int(max_cache_size))
        functools.update_wrapper(self, python_function, updated=())

    # -- public API
    @property
    def python_function(self) -> Callable:
        return self._python_function

    @property
    def input_signature(self) -> Optional[tuple]:
        return self._input_signature

    @property
    def function_spec(self) -> inspect.Signature:
        return self._signature.sig

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function for these arguments (tensors, TensorSpecs or Python values), tracing if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        concrete, _ = self._get_concrete(args, kwargs, allow_specs=True)
        return concrete

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        items = list(reversed(self._cache_items()))
        return "\n\n".join(c.pretty_printed_signature(verbose) for _, c in sorted(
            items, key=lambda kc: kc[1]._trace_order))

    def cache_info(self) -> Dict[str, Any]:
        """Beyond TF: the cache's entries (signatures), hits, misses, evictions and total trace time."""
        hits, misses, evictions = self._cache_stats()
        return {"entries": [c._summary() + " <- " + repr(k) for k, c in self._cache_items()],
                "size": self._cache_size(), "hits": hits + 0, "misses": misses,
                "evictions": evictions, "traces": self._tracing_count,
                "trace_seconds": self._trace_time}

    def clear_cache(self) -> None:
        """Beyond TF: drop every traced concrete function of this Function."""
        self._cache_clear()

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        try:
            bound = self._bound_functions.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(self._python_function, self._name, self._input_signature, self._autograph,
                             self._reduce_retracing, self._jit_compile, _bound_self=weakref.ref(instance))
            try:
                self._bound_functions[instance] = bound
            except TypeError:
                pass
        return bound

    def __repr__(self) -> str:
        return f"<fn.function {self._name} at 0x{id(self):X}>"

    # -- slow path (cache misses, keyword calls, run_functions_eagerly)
    def _call_slow(self, args: tuple, kwargs: dict) -> Any:
        if _core.run_eagerly():
            return self._call_python(args, kwargs)
        concrete, flat = self._get_concrete(args, kwargs, allow_specs=False)
        return concrete._pack_outputs(concrete._core.call(flat))

    def _call_python(self, args: tuple, kwargs: dict) -> Any:
        if self._bound_self is not None:
            return self._python_function(self._instance(), *args, **kwargs)
        return self._python_function(*args, **kwargs)

    def _instance(self) -> Any:
        inst = self._bound_self()
        if inst is None:
            raise ReferenceError(f"The instance bound to {self._name} has been deleted.")
        return inst

    def _get_concrete(self, args: tuple, kwargs: dict, allow_specs: bool) -> Tuple[ConcreteFunction, List[Any]]:
        if self._input_signature is not None:
            values, pos, names = self._apply_input_signature(args, kwargs)
            kw: dict = {}
            key, _ = _core.make_key(pos)
            _, leaves = _core.make_key(values)
        else:
            pos, kw, names = self._signature.bind(args, kwargs, self._name)
            key, leaves = _core.make_key(pos if not kw else (pos, kw))
        concrete = self._cache_lookup(key)
        if concrete is None:
            tracing = _tracing_now()
            if (id(self), key) in tracing:
                raise RecursionError(
                    f"maximum recursion depth exceeded while tracing {self._name}: it calls itself with "
                    f"arguments of the same trace type ({key!r}), so tracing would never end. Recursion "
                    "on tensor values cannot be traced; write it as a loop (a `while` on tensors, or "
                    "fn.while_loop).")
            with self._lock, _TracingMark(tracing, (id(self), key)):   # concurrent first calls trace once
                concrete = self._cache_lookup(key)
                if concrete is None:
                    if self._reduce_retracing:
                        key, pos, kw = self._relax(key, pos, kw)
                    concrete = self._trace(pos, kw, names, key)
                    if not getattr(self, "_first_trace_done", False):
                        self._first_trace_done = True
                        if concrete._variables:
                            # TF traces again with creation disallowed: a Function that makes new
                            # variables on every call fails here, on its first call.
                            concrete = self._trace(pos, kw, names, key)
        flat = [] if allow_specs else [l for l in leaves]
        return concrete, flat

    def _relax(self, key: Any, pos: tuple, kw: dict) -> Tuple[Any, tuple, dict]:
        """reduce_retracing: trace with shapes generalised against an existing trace of the same
        structure (differing dims become None), so later calls of other sizes reuse it."""
        for _, other in self._cache_items():
            relaxed = _merge_specs((pos, kw), (other._pos_values, other._kw_values))
            if relaxed is not None:
                new_key, _ = _core.make_key(relaxed[0] if not relaxed[1] else relaxed)
                return new_key, relaxed[0], relaxed[1]
        return key, pos, kw

    # -- input_signature
    def _validate_input_signature(self) -> None:
        for s in _flatten_specs(self._input_signature):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got {s!r}")

    def _apply_input_signature(self, args: tuple, kwargs: dict) -> Tuple[tuple, tuple, List[str]]:
        """Values converted to match the signature, and the signature itself (the trace's key)."""
        pos, kw, names = self._signature.bind(args, kwargs, self._name)
        sig = self._input_signature
        values = [_conform(v, s) for v, s in zip(pos, sig)]
        if kw or len(pos) != len(sig) or any(v is None for v in values):
            inputs = ",\n    ".join(str(a) for a in args)
            specs = ",\n    ".join(repr(s) for s in sig)
            raise ValueError("Python inputs incompatible with input_signature:\n"
                             f"  inputs: (\n    {inputs})\n  input_signature: (\n    {specs}).")
        return tuple(values), tuple(sig), names

    # -- tracing
    def _trace(self, pos: tuple, kw: dict, names: List[str], key: Any) -> ConcreteFunction:
        start = time.perf_counter()
        trace_id = _next_trace_id()
        graph = _core.Graph(self._name)
        builder = _core.GraphBuilder(graph)
        func_graph = FuncGraph(graph, self._name)
        with _core.ContextScope(builder), _trace_scope(self) as created:
            placeholders: List[Any] = []

            def make_placeholder(leaf: Any, name: str) -> Any:
                spec_shape = leaf.shape
                if self._input_signature is not None and isinstance(leaf, TensorSpec):
                    spec_shape = leaf.shape
                ph = builder.add_placeholder(leaf.name if isinstance(leaf, TensorSpec) and leaf.name else name,
                                             leaf.dtype, spec_shape)
                placeholders.append(ph)
                return ph

            call_pos = tuple(_walk(v, lambda leaf, n=n: make_placeholder(leaf, n)) for v, n in zip(pos, names))
            call_kw = {k: _walk(kw[k], lambda leaf, k=k: make_placeholder(leaf, k)) for k in sorted(kw, key=repr)}
            call_kw = {k: call_kw[k] for k in kw}
            func_graph.inputs = placeholders
            args, kwargs = self._signature.call_args(call_pos, call_kw)
            target = self._traced_callable()
            outputs = target(*args, **kwargs)
            structured, flat_out = _outputs_to_graph(outputs)
            builder.set_outputs(flat_out)
            func_graph.outputs = flat_out
        core = _core.ConcreteFunctionCore(graph, builder.captured_values(), f"__inference_{self._name}_{trace_id}")
        spec_pos = tuple(_walk(v, _to_spec) for v in pos)
        spec_kw = {k: _walk(v, _to_spec) for k, v in kw.items()}
        concrete = ConcreteFunction(core, func_graph, self._name, self._signature, spec_pos, spec_kw, names,
                                    structured, [], variables=created)
        concrete._trace_order = trace_id
        mode = 2
        if _core.is_tensor(structured):
            mode = 0
        elif type(structured) is tuple and all(_core.is_tensor(t) for t in structured):
            mode = 1
        self._cache_insert(key, core, concrete, mode)
        self._tracing_count += 1
        self._trace_time += time.perf_counter() - start
        _explain.on_trace(self, key)
        return concrete

    def _traced_callable(self) -> Callable:
        fn = self._python_function
        if self._autograph:
            if self._converted is None:
                try:
                    from fn import autograph
                    self._converted = autograph.convert(fn)
                except Exception as e:  # noqa: BLE001  AutoGraph warns and falls back itself
                    warnings.warn(f"AutoGraph could not convert {self._name}: {e}")
                    self._converted = fn
            fn = self._converted
        if self._bound_self is not None:
            return functools.partial(fn, self._instance())
        return fn


_tracing_local = threading.local()


def _tracing_now() -> set:
    """(function id, key) pairs being traced on this thread (to stop infinite recursion)."""
    if not hasattr(_tracing_local, "active"):
        _tracing_local.active = set()
    return _tracing_local.active


class _TracingMark:
    def __init__(self, active: set, item: Any) -> None:
        self.active, self.item = active, item

    def __enter__(self) -> None:
        self.active.add(self.item)

    def __exit__(self, *exc: Any) -> None:
        self.active.discard(self.item)


def _trace_scope(f: "Function") -> Any:
    """Variables' creation rules while tracing (fn.variables), a no-op before that module loads."""
    mod = sys.modules.get("fn._variables")
    if mod is None:
        import contextlib
        return contextlib.nullcontext([])
    return mod._creation_scope(f)


def _to_spec(leaf: Any) -> TensorSpec:
    return leaf if isinstance(leaf, TensorSpec) else TensorSpec(leaf.shape, leaf.dtype)


def _flatten_specs(sig: Any) -> List[Any]:
    if isinstance(sig, (list, tuple)) and not isinstance(sig, TensorSpec):
        out: List[Any] = []
        for s in sig:
            out.extend(_flatten_specs(s))
        return out
    if isinstance(sig, dict):
        return [x for k in sorted(sig, key=repr) for x in _flatten_specs(sig[k])]
    return [sig]


def _conform(value: Any, spec: Any) -> Any:
    """``value`` converted to match ``spec`` (a TensorSpec or a structure of them), or None."""
    if isinstance(spec, TensorSpec):
        if isinstance(value, TensorSpec):
            return value if value.dtype == spec.dtype and value.shape.is_subtype_of(spec.shape) else None
        if not _core.is_tensor(value):
            try:
                value = _core.convert_to_tensor(value, spec.dtype)
            except Exception:  # noqa: BLE001
                return None
        if value.dtype != spec.dtype or not value.shape.is_subtype_of(spec.shape):
            return None
        return value
    if isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple)) and len(spec) == len(value):
        parts = [_conform(v, s) for v, s in zip(value, spec)]
        return None if any(p is None for p in parts) else type(value)(parts)
    return None


def _merge_specs(a: Any, b: Any) -> Any:
    """The structure of ``a`` with tensors/specs generalised to also admit ``b``'s, or None when
    the two differ in anything but tensor dimensions."""
    if _core.is_tensor(a) or isinstance(a, TensorSpec):
        if not (_core.is_tensor(b) or isinstance(b, TensorSpec)) or a.dtype != b.dtype:
            return None
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        parts = [_merge_specs(x, y) for x, y in zip(a, b)]
        if any(p is None for p in parts):
            return None
        return type(a)(*parts) if hasattr(a, "_fields") else type(a)(parts)
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        parts = {k: _merge_specs(a[k], b[k]) for k in a}
        return None if any(v is None for v in parts.values()) else parts
    return a if (type(a) is type(b) and a == b) or a is b else None


def _outputs_to_graph(outputs: Any) -> Tuple[Any, List[Any]]:
    """Adds an Identity node per returned tensor (TF's output convention) and returns the
    structured outputs with those tensors plus the flat list."""
    flat: List[Any] = []

    def ident(t: Any) -> Any:
        if isinstance(t, TensorSpec):
            raise TypeError("A Function cannot return a TensorSpec.")
        out = _core.execute("Identity", [t], None, None)[0]
        flat.append(out)
        return out

    def convert(v: Any) -> Any:
        if hasattr(v, "__fn_tensor__") and not _core.is_tensor(v):
            return v.__fn_tensor__(None)
        # Python numbers and strings returned from a Function come back as tensors (TF).
        if isinstance(v, (bool, int, float, str, bytes)) or type(v).__module__ == "numpy":
            return _core.convert_to_tensor(v)
        return v

    structured = _walk(_map_objects(outputs, convert), ident)
    return structured, flat


def _map_objects(v: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(v, list):
        return [_map_objects(x, fn) for x in v]
    if isinstance(v, tuple):
        items = [_map_objects(x, fn) for x in v]
        return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    if type(v) is dict:
        return {k: _map_objects(x, fn) for k, x in v.items()}
    return fn(v)


_RETRACE_COMPARE = 32      # cached signatures a retrace explanation compares with
_RETRACE_LOG_SIZE = 100    # explanations kept per Function


class _Explain:
    """Retracing explanations (beyond TF): which argument's trace type differed and how."""

    def __init__(self) -> None:
        self.enabled = False
        self.log: List[str] = []

    def on_trace(self, f: Function, key: Any) -> None:
        # Compare with the most recent signatures only, and keep the last messages only: a
        # Function retraced 20,000 times must stay O(1) per trace in time and memory.
        items = [k for k, _ in f._cache_items(_RETRACE_COMPARE) if not (k == key)]
        if not items:
            return
        msg = _describe_retrace(f, key, items)
        log = f.__dict__.get("_retrace_log")
        if log is None:
            log = f.__dict__["_retrace_log"] = collections.deque(maxlen=_RETRACE_LOG_SIZE)
        log.append(msg)
        if self.enabled:
            print(msg, file=sys.stderr)
        # Like TF, only retraces of top-level calls count (not calls made while tracing, such as
        # recursion on Python values).
        if not _core.executing_eagerly():
            return
        f._toplevel_traces = getattr(f, "_toplevel_traces", 0) + 1
        if f._toplevel_traces >= 5 and not getattr(f, "_warned_retracing", False):
            f._warned_retracing = True
            code = getattr(f._python_function, "__code__", None)
            where = f"{code.co_filename}:{code.co_firstlineno}" if code else f._name
            warnings.warn(f"{f._tracing_count} retracings of {f._name} ({where}) triggered. "
                          f"Tracing is expensive; the last retrace happened because: {msg}", stacklevel=4)


def _describe_retrace(f: Function, key: Any, others: List[Any]) -> str:
    names = [p.name for p in f._signature.params]
    best, best_diff = None, None
    for other in others:
        a, b = key.elements(), other.elements()
        if len(a) != len(b):
            diff = [f"the number of arguments changed ({len(b)} -> {len(a)})"]
        else:
            diff = [f"argument {names[i] if i < len(names) else i!r}: {b[i]!r} -> {a[i]!r}"
                    for i in range(len(a)) if not (a[i] == b[i])]
        if best_diff is None or len(diff) < len(best_diff):
            best, best_diff = other, diff
    return f"{f._name} retraced: closest cached signature {best!r} differs in " + "; ".join(best_diff or ["(nothing)"])


_explain = _Explain()


def function(func: Optional[Callable] = None, input_signature: Optional[Sequence[Any]] = None,
             autograph: bool = True, jit_compile: Optional[bool] = None, reduce_retracing: bool = False,
             experimental_relax_shapes: Optional[bool] = None, name: Optional[str] = None,
             max_cache_size: int = 0, **unused: Any) -> Any:
    """``tf.function``: compiles ``func`` into a callable Function that traces per input signature.

    Beyond TF: ``max_cache_size`` bounds the cache (LRU); ``Function.cache_info()`` and
    ``clear_cache()`` inspect and reset it.
    """
    def decorate(f: Callable) -> Function:
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        experimental_relax_shapes=experimental_relax_shapes, max_cache_size=max_cache_size)
    if func is not None:
        return decorate(func)
    return decorate
