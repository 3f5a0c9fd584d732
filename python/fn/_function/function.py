"""``fn.function``: trace a Python function into graphs, cache them by trace type, run them in C++.

Mirrors ``tf.function``. The cached-call fast path (trace-type key, lookup, run) is C++
(``_core.FunctionBase.__call__``); this module runs only on a cache miss: binding arguments,
tracing, and building the ``ConcreteFunction``.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import logging
import os
import sys
import threading
import time
import warnings
import weakref
from types import FrameType
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fn import _core
from fn._autograph import converter as autograph_converter, status as ag_status
from fn._autograph import transformer as autograph_transformer
from fn._autograph.errors import StagingError, in_user_code
from fn._state.variables import _creation_scope
from fn._tensor.tensor_spec import TensorSpec
from fn._function.concrete_function import ConcreteFunction
from fn._function.func_graph import FuncGraph
from fn._function.function_args import _flatten_tensors, _is_variable_leaf, _placeholders, _Signature, _to_spec, _walk
from fn._function.input_signature import _binding_error, _CastError, _conform
from fn._function.retracing import _count_call, _explain

_logger = logging.getLogger("fn")
_FN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the fn package


def _user_location() -> str:
    """File and line of the innermost frame outside fn itself (for leak and error messages)."""
    f: Optional[FrameType] = sys._getframe(1)
    while f is not None:
        fname = f.f_code.co_filename
        internal = fname.startswith("<") and ("importlib" in fname or fname.startswith("<embedded"))
        if not fname.startswith(_FN_DIR) and not internal:
            return f'  File "{fname}", line {f.f_lineno}, in {f.f_code.co_name}'
        f = f.f_back
    return "  <unknown>"


# _user_location's rule, walked in C++ (once per traced node); AutoGraph's generated parts read as
# the user's function there too.
_core.set_location_skip(_FN_DIR, list(autograph_transformer.GENERATED_PARTS))


# ---------------------------------------------------------------- Function

_trace_counter = [0]
_trace_counter_lock = threading.Lock()

# Callables giving the trace context of a call (None: none): a Function traced in one context
# is not reused in another (TF keys its cache by the device and distribution-strategy stack; fn
# by what these return, e.g. the replica of a multi-replica strategy.run, whose variables are
# that replica's copies). While a provider can return a value, it calls
# _core.enter_context_keyed_calls() so the C++ fast path (which knows no context) is skipped.
trace_context_providers: List[Callable[[], Any]] = []


def _trace_context() -> Any:
    for provider in trace_context_providers:
        ctx = provider()
        if ctx is not None:
            return ctx
    return None


def _next_trace_id() -> int:
    with _trace_counter_lock:
        _trace_counter[0] += 1
        return _trace_counter[0]


def _plain_dicts(value: Any) -> Any:
    """An input_signature with its mappings as plain dicts (a Keras ``TrackedDict`` of specs
    nests like the dict it is, as in TF's nest)."""
    if isinstance(value, dict):
        return {k: _plain_dicts(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_plain_dicts(v) for v in value) if type(value) in (list, tuple) else value
    return value


class Function(_core.FunctionBase):
    """A Python function traced into graphs per input signature (``tf.types.experimental.PolymorphicFunction``,
    what ``tf.function`` returns). Calls with a cached trace type run the graph from C++."""

    def __init__(
        self,
        python_function: Callable,
        name: Optional[str] = None,
        input_signature: Optional[Sequence[Any]] = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        jit_compile: Optional[bool] = None,
        experimental_relax_shapes: Optional[bool] = None,
        max_cache_size: int = 0,
        _bound_self: Any = None,
    ) -> None:
        super().__init__()
        if not callable(python_function):
            raise TypeError(f"{python_function!r} is not a callable object")
        self._python_function = python_function
        self._name: str = name or str(getattr(python_function, "__name__", "function"))
        self._autograph = autograph
        self._reduce_retracing = bool(reduce_retracing or experimental_relax_shapes)
        self._jit_compile = jit_compile
        self._bound_self = _bound_self  # weakref to the instance of a bound method
        self._signature = _Signature(python_function, skip_first=_bound_self is not None)
        if input_signature is not None and not isinstance(input_signature, (tuple, list)):
            raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
        self._input_signature = None if input_signature is None else tuple(_plain_dicts(input_signature))
        if (
            self._input_signature is not None
            and self._signature.var_positional is None
            and len(self._input_signature) > len(self._signature.positional)
        ):
            # TF 2.0 (the blog post, SPEC 5.1) ignored specs beyond the function's parameters.
            self._input_signature = self._input_signature[: len(self._signature.positional)]
        if self._input_signature is not None:
            self._validate_input_signature()
        if self._input_signature is None:  # (with one, calls bind to it: _set_signature_fast)
            self._set_binding(self._signature.spec)
        if (
            self._input_signature is not None
            and all(isinstance(s, TensorSpec) for s in self._input_signature)
            and len(self._input_signature) == len(self._signature.positional)
            and not any(p.kind is inspect.Parameter.KEYWORD_ONLY for p in self._signature.params)
        ):
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

    @property
    def __signature__(self) -> inspect.Signature:
        # What inspect.signature shows: a bound method's Function has no `self` (wrapping it in
        # another tf.function then binds keywords as the method does).
        return self._signature.sig

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function for these arguments (tensors, TensorSpecs or Python values), tracing if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        concrete, _ = self._get_concrete(args, kwargs, allow_specs=True)
        if self._input_signature is None:
            pos, kw, names = self._signature.bind(args, kwargs, self._name)
            if _renames_inputs(concrete, pos, kw):
                # TF: TensorSpec names are not part of the trace type, but asking for other
                # names traces again and the new concrete function replaces the cached one.
                key, _ = _core.make_key(pos if not kw else (pos, kw))
                with self._lock:
                    concrete = self._trace(pos, kw, names, key)
        return concrete

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        items = list(reversed(self._cache_items()))
        return "\n\n".join(
            c.pretty_printed_signature(verbose) for _, c in sorted(items, key=lambda kc: kc[1]._trace_order)
        )

    def _list_all_concrete_functions(self) -> List[ConcreteFunction]:
        """TF's private listing (Keras' export reads it): the traced concrete functions, oldest
        first; with an input_signature and no trace yet, the one it defines."""
        if self._input_signature is not None and not self._cache_size():
            self.get_concrete_function()
        return [c for _, c in sorted(self._cache_items(), key=lambda kc: kc[1]._trace_order)]

    def cache_info(self) -> Dict[str, Any]:
        """Beyond TF: the cache's entries (signatures), hits, misses, evictions and total trace time."""
        hits, misses, evictions = self._cache_stats()
        return {
            "entries": [c._summary() + " <- " + repr(k) for k, c in self._cache_items()],
            "size": self._cache_size(),
            "hits": hits + 0,
            "misses": misses,
            "evictions": evictions,
            "traces": self._tracing_count,
            "trace_seconds": self._trace_time,
        }

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
            bound = Function(
                self._python_function,
                self._name,
                self._input_signature,
                self._autograph,
                self._reduce_retracing,
                self._jit_compile,
                _bound_self=weakref.ref(instance),
            )
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
        eager = _core.executing_eagerly()
        hits, before = (self._cache_stats()[0], self._tracing_count) if eager else (0, 0)
        try:
            concrete, flat = self._get_concrete(args, kwargs, allow_specs=False)
        except RecursionError as e:
            if not eager or isinstance(e, StagingError):
                raise
            # Python recursion through Functions (new trace types each call) ran out of stack.
            raise StagingError(f"in user code:\n\n    RecursionError: {e}") from None
        result = concrete._pack_outputs(concrete._core.call(flat))
        if eager:
            _count_call(self, self._tracing_count != before, hits)
        return result

    def _call_python(self, args: tuple, kwargs: dict) -> Any:
        if self._bound_self is not None:
            return self._python_function(self._instance(), *args, **kwargs)
        return self._python_function(*args, **kwargs)

    def _instance(self) -> Any:
        # Held weakly; once the instance is gone (`Foo().f(1)`), self is None, as in TF.
        return self._bound_self()

    def _get_concrete(self, args: tuple, kwargs: dict, allow_specs: bool) -> Tuple[ConcreteFunction, List[Any]]:
        if self._input_signature is not None:
            values, pos, names, kw = self._apply_input_signature(args, kwargs)
            # Keyword-only parameters keep their defaults; a tensor default is an input too.
            key, _ = _core.make_key(pos if not kw else (pos, kw))
            _, leaves = _core.make_key(values if not kw else (values, kw))
        else:
            if kwargs:
                _check_sanitized_names(kwargs)
            pos, kw, names = self._signature.bind(args, kwargs, self._name)
            key, leaves = _core.make_key(pos if not kw else (pos, kw))
        context = _trace_context() if trace_context_providers else None
        if context is not None:
            key = _core.make_key(((pos, kw), ("__trace_context__", context)))[0]
        concrete = self._cache_lookup(key)
        if concrete is None:
            _check_no_weakrefs(pos, kw)
            tracing = _tracing_now()
            if (id(self), key) in tracing:
                raise StagingError(
                    "in user code:\n\n    RecursionError: "
                    f"maximum recursion depth exceeded while tracing {self._name}: it calls itself with "
                    f"arguments of the same trace type ({key!r}), so tracing would never end. Recursion "
                    "on tensor values cannot be traced; write it as a loop (a `while` on tensors, or "
                    "fn.while_loop)."
                )
            with self._lock, _TracingMark(tracing, (id(self), key)):  # concurrent first calls trace once
                concrete = self._cache_lookup(key)
                if concrete is None:
                    if self._reduce_retracing and context is None:
                        key, pos, kw = self._relax(key, pos, kw)
                    concrete = self._trace(pos, kw, names, key, None if allow_specs else list(leaves))
                    if not getattr(self, "_first_trace_done", False):
                        self._first_trace_done = True
                        self._first_trace_created = bool(concrete._variables)
                        if concrete._variables:
                            # TF traces again with creation disallowed: a Function that makes new
                            # variables on every call fails here, on its first call.
                            concrete = self._trace(pos, kw, names, key)
                    if context is not None:
                        concrete._fn_trace_context = context  # SavedModel exports context-free traces
        flat = [] if allow_specs else list(leaves)
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
        """TF's checks of an input_signature when the Function is made (TypeError each)."""
        specs = _flatten_specs(self._input_signature)
        variable_specs = [s for s in specs if _is_variable_leaf(s)]
        if variable_specs:
            raise TypeError(f"input_signature doesn't support VariableSpec, got {variable_specs}")
        bad = [s for s in specs if not isinstance(s, TensorSpec) and not hasattr(type(s), "_fn_from_components")]
        if bad:
            raise TypeError(
                "input_signature must be a possibly nested sequence of TensorSpec objects, got invalid "
                f"args {bad} with types {[type(s) for s in bad]}."
            )
        for p in self._signature.params:
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty:
                raise TypeError(
                    f"Since input_signature is defined, keyword-only parameter `{p.name}` must have a default value"
                )
        # Every positional parameter past the signature needs a default (TF's function type).
        positional = self._signature.positional
        if positional and positional[0].name == "self":  # a method, bound later (TF skips it too)
            positional = positional[1:]
        for p in positional[len(self._input_signature or ()) :]:
            if p.default is inspect.Parameter.empty:
                raise TypeError(f"input_signature missing type constraint for {p.name}")

    def _apply_input_signature(self, args: tuple, kwargs: dict) -> Tuple[tuple, tuple, List[str], dict]:
        """Values converted to match the signature, and the canonical arguments to trace with
        (the specs, then the defaults of parameters beyond the signature)."""
        sig = self._input_signature
        assert sig is not None  # called only when the Function has an input_signature
        try:
            pos, kw, names = self._signature.bind(args, kwargs, self._name, raw=True)
            for p in self._signature.params:
                if p.kind is inspect.Parameter.KEYWORD_ONLY:  # only their defaults are allowed
                    v, d = kw.get(p.name), p.default
                    if d is inspect.Parameter.empty or not (v is d or (type(v) is type(d) and v == d)):
                        raise _CastError(f"Can not cast {v!r} to Literal[{d!r}]")
                elif p.kind is inspect.Parameter.VAR_KEYWORD and any(
                    k not in self._signature.sig.parameters for k in kw
                ):
                    raise _CastError(f"got unexpected keyword arguments {sorted(kw)} (input_signature is set)")
            values = [_conform(v, s) for v, s in zip(pos, sig)]
            extras = list(pos[len(sig) :])
            for p, v in zip(self._signature.positional[len(sig) :], extras):
                d = p.default
                if d is inspect.Parameter.empty or not (v is d or (type(v) is type(d) and v == d)):
                    raise _CastError(f"Can not cast {v!r} to Literal[{d!r}]")
        except (TypeError, _CastError) as e:
            raise _binding_error(self, e, args, kwargs, sig) from None
        return tuple(values) + tuple(extras), tuple(sig) + tuple(extras), names, kw

    # -- tracing
    def _trace(
        self, pos: tuple, kw: dict, names: List[str], key: Any, actual: Optional[List[Any]] = None
    ) -> ConcreteFunction:
        start = time.perf_counter()
        trace_id = _next_trace_id()
        graph = _core.Graph(self._name)
        builder = _core.GraphBuilder(graph)
        func_graph = FuncGraph(graph, self._name)
        with _core.ContextScope(builder), _trace_scope(self, _evaluator(graph, builder, actual)) as created:
            placeholders: List[Any] = []

            def make_placeholder(leaf: Any, name: str) -> Any:
                if _is_variable_leaf(leaf):
                    return _variable_placeholder(builder, leaf, name, placeholders)
                spec_shape = leaf.shape
                if self._input_signature is not None and isinstance(leaf, TensorSpec):
                    spec_shape = leaf.shape
                ph = builder.add_placeholder(
                    leaf.name if isinstance(leaf, TensorSpec) and leaf.name else sanitize_arg_name(name),
                    leaf.dtype,
                    spec_shape,
                )
                placeholders.append(ph)
                return ph

            _placeholders.on = True
            try:
                call_pos = tuple(_walk(v, functools.partial(make_placeholder, name=n)) for v, n in zip(pos, names))
                call_kw = {k: _walk(kw[k], functools.partial(make_placeholder, name=k)) for k in sorted(kw, key=repr)}
            finally:
                _placeholders.on = False
            call_kw = {k: call_kw[k] for k in kw}
            func_graph.inputs = placeholders
            args, kwargs = self._signature.call_args(call_pos, call_kw)
            target = self._traced_callable()
            before = [_structure(v) for v in call_pos] + [_structure(v) for v in call_kw.values()]
            try:
                with ag_status.control_status_ctx(ag_status.ENABLED if self._autograph else ag_status.DISABLED):
                    outputs = target(*args, **kwargs)
            except Exception as e:  # TF's "in user code:" message for errors raised by converted code
                rewritten = in_user_code(e)
                if rewritten is None:
                    raise
                raise rewritten from None
            if type(outputs).__name__ == "generator":  # TF's message (a generator cannot be traced)
                raise TypeError(
                    "To be compatible with tf.function, Python functions must return zero or more "
                    "Tensors or ExtensionTypes or None values; in compilation of "
                    f"{self._python_function}, found return value of type generator, which is not a "
                    "Tensor or ExtensionType."
                )
            after = [_structure(v) for v in call_pos] + [_structure(v) for v in call_kw.values()]
            changed = [n for n, b, a in zip(list(names) + list(call_kw), before, after) if b != a]
            if changed:
                params = ", ".join(p.name for p in self._signature.params)
                raise ValueError(
                    f"{self._name}({params}) should not modify its Python input arguments. Modifying "
                    "a copy is allowed. The following parameter(s) were modified: "
                    f"{', '.join(changed)}"
                )
            structured, flat_out = _outputs_to_graph(outputs)
            builder.set_outputs(flat_out)
            func_graph.outputs = flat_out
            func_graph.inputs = placeholders + list(builder.capture_placeholders())
        core = _core.ConcreteFunctionCore(graph, builder.captured_values(), f"__inference_{self._name}_{trace_id}")
        core._graph_errors = True  # run-time op errors read as TF's "Graph execution error"
        spec_pos = tuple(_walk(v, _to_spec) for v in pos)
        spec_kw = {k: _walk(v, _to_spec) for k, v in kw.items()}
        concrete = ConcreteFunction(
            core, func_graph, self._name, self._signature, spec_pos, spec_kw, names, structured, [], variables=created
        )
        concrete._trace_order = trace_id
        mode = _core.OutputMode.PYTHON_PACK
        if _core.is_tensor(structured):
            mode = _core.OutputMode.ONE_TENSOR
        elif type(structured) is tuple and all(_core.is_tensor(t) for t in structured):
            mode = _core.OutputMode.TENSOR_TUPLE
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
                    self._converted = autograph_converter.convert(fn)
                except Exception as e:  # AutoGraph warns and falls back itself
                    if autograph_converter._strict():  # AUTOGRAPH_STRICT_CONVERSION: raise, as TF does
                        raise
                    warnings.warn(f"AutoGraph could not convert {self._name}: {e}", stacklevel=2)
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


def _trace_scope(f: "Function", evaluate: Optional[Callable[[Any], Any]] = None) -> Any:
    """Variables' creation rules while tracing (fn._state.variables)."""
    return _creation_scope(f, evaluate)


def _evaluator(graph: Any, builder: Any, actual: Optional[List[Any]]) -> Optional[Callable[[Any], Any]]:
    """Computes a tensor of the graph being traced from the call's actual arguments (the graph so
    far, pruned to that tensor), or None when the call's values are not known (specs)."""
    if actual is None or any(a is None for a in actual):
        return _spec_evaluator(graph, builder)

    def evaluate(t: Any) -> Any:
        try:
            builder.set_outputs([t])
        except Exception:  # a tensor of a nested graph: not computable here
            return t
        core = _core.ConcreteFunctionCore(graph, builder.captured_values(), "__lazy_initial_value")
        with _core.ContextScope(None):
            return core.call(list(actual))[0]

    return evaluate


def _spec_evaluator(graph: Any, builder: Any) -> Callable[[Any], Any]:
    """Tracing from specs: a tensor that does not depend on the arguments (a Const, ``ones_like``
    of a static shape) is computed all the same; one that does stays symbolic."""

    def evaluate(t: Any) -> Any:
        index = {graph.node_name(i): i for i in range(graph.num_nodes())}
        captures = set(graph.capture_placeholders)
        args = [i for i in range(graph.num_nodes()) if graph.node_op(i) == "Placeholder" and i not in captures]
        stack, seen = [t.name.split(":")[0]], set()
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            if name not in index:
                return t  # a tensor of a nested graph
            seen.add(name)
            i = index[name]
            if i in args:
                return t
            stack.extend(x.lstrip("^").split(":")[0] for x in graph.node_inputs(i))
        dummies = []
        for i in args:
            dtype, shape = graph.node_outputs(i)[0]
            if dtype.name in ("resource", "variant") or shape.rank is None:
                return t
            dummies.append(
                _core.convert_to_tensor(np.zeros([d or 0 for d in shape.as_list()], dtype.as_numpy_dtype), dtype)
            )
        try:
            builder.set_outputs([t])
            core = _core.ConcreteFunctionCore(graph, builder.captured_values(), "__lazy_initial_value")
            with _core.ContextScope(None):
                return core.call(dummies)[0]
        except Exception:  # not computable here: the Variable says why
            return t

    return evaluate


def _renames_inputs(concrete: ConcreteFunction, pos: tuple, kw: dict) -> bool:
    """Whether named TensorSpecs among the arguments differ from the names ``concrete`` was
    traced with (an unnamed spec matches any)."""

    def specs(v: Any) -> List[Any]:
        return [x for x in _flatten_tensors(v) if isinstance(x, TensorSpec)]

    pairs = list(zip(pos, concrete._pos_values)) + [(kw[k], concrete._kw_values.get(k)) for k in kw]
    for new, old in pairs:
        a, b = specs(new), specs(old)
        if len(a) == len(b) and any(x.name is not None and x.name != y.name for x, y in zip(a, b)):
            return True
    return False


def sanitize_arg_name(name: str) -> str:
    """TF's placeholder name for a parameter: non-alphanumerics become ``_``, and a name that
    does not start with a letter gets ``arg_`` in front (``a/b`` -> ``a_b``)."""
    swapped = "".join(c if c.isalnum() else "_" for c in name)
    return swapped if swapped[:1].isalpha() else "arg_" + swapped


def _check_sanitized_names(kwargs: dict) -> None:
    sanitized = {sanitize_arg_name(k) for k in kwargs}
    if len(sanitized) != len(kwargs):
        raise ValueError(
            "Name collision after sanitization. Please rename tf.function input parameters. "
            f"Original: {sorted(kwargs)}, Sanitized: {sorted(sanitized)}"
        )


def _structure(v: Any) -> Any:
    """The nesting of lists and dicts in an argument and the identity of their items (what TF
    checks a trace left unmodified: `l.reverse()` or `d.update(t1=...)` keep the nesting)."""
    if isinstance(v, list):
        return ("list", id(v), tuple(_structure(x) for x in v))
    if isinstance(v, tuple):
        return tuple(_structure(x) for x in v)
    if isinstance(v, dict):
        return ("dict", id(v), tuple((repr(k), _structure(v[k])) for k in sorted(v, key=repr)))
    return id(v)


def _check_no_weakrefs(pos: tuple, kw: dict) -> None:
    def visit(v: Any) -> None:
        if isinstance(v, weakref.ref):
            raise TypeError(f"weakref input {v!r} not supported for tf.function.")
        if isinstance(v, (list, tuple)):
            for x in v:
                visit(x)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)

    visit(pos)
    visit(kw)


def _variable_placeholder(builder: Any, leaf: Any, name: str, placeholders: List[Any]) -> Any:
    """A Variable argument inside the trace is the Variable itself (as in TF); its handle's uses
    read a placeholder, fed with the handle of the Variable each call passes."""
    if not hasattr(leaf, "_fn_handle"):
        raise TypeError(f"Cannot trace with {leaf!r}: pass a Variable")
    ph = builder.add_placeholder(name, "resource", [])
    placeholders.append(ph)
    builder.bind_input(leaf._fn_handle, ph)
    return leaf


def _flatten_specs(sig: Any) -> List[Any]:
    if isinstance(sig, (list, tuple)) and not isinstance(sig, TensorSpec):
        out: List[Any] = []
        for s in sig:
            out.extend(_flatten_specs(s))
        return out
    if isinstance(sig, dict):
        return [x for k in sorted(sig, key=repr) for x in _flatten_specs(sig[k])]
    return [sig]


def _merge_specs(a: Any, b: Any) -> Any:
    """The structure of ``a`` with tensors/specs generalised to also admit ``b``'s, or None when
    the two differ in anything but tensor dimensions."""
    if _core.is_tensor(a) or isinstance(a, TensorSpec):
        if not (_core.is_tensor(b) or isinstance(b, TensorSpec)) or a.dtype != b.dtype:
            return None
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    if hasattr(type(a), "__fn_composite__") and hasattr(type(b), "__fn_composite__"):
        sa, sb = a.__fn_composite__()[0], b.__fn_composite__()[0]
        if getattr(sa, "_fn_trace_from_spec", False):  # RaggedTensorSpec: TF's supertype
            return sa.most_specific_common_supertype([sb])
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        parts = [_merge_specs(x, y) for x, y in zip(a, b)]
        if any(p is None for p in parts):
            return None
        return type(a)(*parts) if hasattr(a, "_fields") else type(a)(parts)
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        merged = {k: _merge_specs(a[k], b[k]) for k in a}
        return None if any(v is None for v in merged.values()) else merged
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
        if type(v).__name__ == "TensorShape" and hasattr(v, "as_list"):  # TF: a known shape converts
            if not v.is_fully_defined():
                raise TypeError(
                    "To be compatible with tf.function, Python functions must return zero or more "
                    "Tensors or ExtensionTypes or None values; found return value of type "
                    "TensorShape, which is not a Tensor or ExtensionType."
                )
            return _core.convert_to_tensor(v.as_list(), "int32")
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
    if hasattr(type(v), "__tf_flatten__") and not isinstance(v, type):
        metadata, components = v.__tf_flatten__()
        return type(v).__tf_unflatten__(metadata, tuple(_map_objects(c, fn) for c in components))
    return fn(v)


def executing_eagerly() -> bool:
    """``tf.executing_eagerly``: False while a Function is being traced."""
    return bool(_core.executing_eagerly())


def get_logger() -> logging.Logger:
    """``tf.get_logger``: the logger fn warns through (retracing, AutoGraph)."""
    return _logger


def function(
    func: Optional[Callable] = None,
    input_signature: Optional[Sequence[Any]] = None,
    autograph: bool = True,
    jit_compile: Optional[bool] = None,
    reduce_retracing: bool = False,
    experimental_relax_shapes: Optional[bool] = None,
    name: Optional[str] = None,
    max_cache_size: int = 0,
    **unused: Any,
) -> Any:
    """``tf.function``: compiles ``func`` into a callable Function that traces per input signature.

    Beyond TF: ``max_cache_size`` bounds the cache (LRU); ``Function.cache_info()`` and
    ``clear_cache()`` inspect and reset it.
    """

    def decorate(f: Callable) -> Function:
        return Function(
            f,
            name=name,
            input_signature=input_signature,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
            jit_compile=jit_compile,
            experimental_relax_shapes=experimental_relax_shapes,
            max_cache_size=max_cache_size,
        )

    if func is not None:
        return decorate(func)
    return decorate
