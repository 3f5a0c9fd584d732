"""User functions of tf.data transformations, traced once into graphs (TF's
``StructuredFunctionWrapper``): ``map``/``filter``/``scan`` functions, predicates, and functions
returning datasets (``flat_map``, ``interleave``, ``group_by_window``'s reduce)."""

from __future__ import annotations

import copy
from typing import Any, Callable, List, Optional, Tuple

from fn import _core, errors
from fn.dtypes import bool_
from fn._tensor.tensor_spec import TensorSpec
from fn._data import error_text, structure
from fn._data.dataset_ops import Dataset
from fn._ops.array_ops import identity, stack
from fn._function.function import Function
from fn._autograph import operators as autograph


def to_output(value: Any) -> Any:
    """A user function's result as tensors (TF's ``StructuredFunctionWrapper``): a returned list
    is a tuple of components (it is most often the list of a ``py_function`` / ``numpy_function``,
    whose tensors need not stack); lists inside it become one tensor each."""
    if value is None:
        raise ValueError("The function passed to a fn.data transformation must return a value (it returned None).")
    if isinstance(value, list):
        value = tuple(value)
    return _component(value)


def _component(value: Any) -> Any:
    if value is None:  # a None component (TF's NoneTensor) stays None
        return None
    if structure._is_extension(value) or structure.is_composite(value):
        return value  # ExtensionTypes, RaggedTensors, SparseTensors, Optionals cross as themselves
    if isinstance(value, tuple):
        items = [_component(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, dict):
        out = {k: _component(v) for k, v in value.items()}
        return out if type(value) is dict else type(value)(out)  # OrderedDict stays one
    if isinstance(value, list):
        if any(_core.is_tensor(v) for v in value):
            return stack(value)
        return _core.convert_to_tensor(value)
    return _core.convert_to_tensor(value)


def plain_dicts(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: plain_dicts(v) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [plain_dicts(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


class TracedFunction:
    """A user function traced once for an element spec (TF's ``StructuredFunctionWrapper``).
    A plain tuple element is passed as positional arguments, anything else as one argument."""

    def __init__(self, func: Callable, input_spec: Any, name: str, unpack: Optional[bool] = None) -> None:
        if not callable(func):
            raise TypeError(f"`{name}` must be callable, got {func!r}.")
        self._unpack = type(input_spec) is tuple if unpack is None else unpack

        traced_structure: List[Any] = []

        def traced(*args: Any) -> Any:
            # Identity on each output: an element passed through unchanged is still an output
            # of the graph (not its argument placeholder).
            out = to_output(autograph.converted_call(func, args))
            out = structure.map_structure(lambda t: identity(t) if _core.is_tensor(t) else t, out)
            traced_structure[:] = [out]
            return plain_dicts(out)  # fn.function's outputs keep plain dicts only

        fname = getattr(func, "__name__", "fn")
        self._function = Function(traced, name=f"{name}_{fname}".replace("<", "_").replace(">", "_"), autograph=False)
        # fn.function nests plain dicts (OrderedDicts too); a None component is a Python None.
        input_spec = structure.none_as_python(plain_dicts(input_spec))
        specs = tuple(input_spec) if self._unpack else (input_spec,)
        self._concrete = self._function.get_concrete_function(*specs)
        self._core = self._concrete._core
        self._core._graph_errors = False  # errors surface as the iterator's, not a Function call's
        self.output_spec = structure.spec_from_value(traced_structure[0])
        self._flat_specs = structure.flatten(self.output_spec)

    def __call__(self, element: Any) -> Any:
        element = plain_dicts(element)
        args = tuple(element) if self._unpack else (element,)
        flat: List[Any] = []
        for a in args:  # ragged and sparse leaves cross as their component tensors
            flat.extend(structure.flatten_components(a))
        try:
            out = self._core.call(flat)
        except errors.OpError as e:
            error_text.tag(e, self)
            raise
        if len(out) == len(self._flat_specs):  # packed with tf.data's nesting (OrderedDicts kept)
            return structure.pack(self.output_spec, list(out))
        return self._concrete._pack_outputs(out)

    def graph_captures(self) -> List[Any]:
        """The tensors of an enclosing trace this function captured (a ``map`` inside a Function
        reading the Function's tensors): the dataset lists them among its graph inputs."""
        return [c for c in self._core.captures if not c._is_eager]

    def with_captures(self, values: Any) -> "TracedFunction":
        """A copy whose captured graph tensors are replaced by ``values`` (the running graph's)."""
        caps = [next(values) if not c._is_eager else c for c in self._core.captures]
        new = copy.copy(self)
        new._core = _core.ConcreteFunctionCore(self._core.graph, caps, self._core.name)
        return new


def traced_predicate(predicate: Callable, element_spec: Any, name: str) -> "TracedFunction":
    """``predicate`` traced over ``element_spec``; it must return a scalar bool (TF's check)."""
    func = TracedFunction(predicate, element_spec, name)
    out = func.output_spec
    if not (isinstance(out, TensorSpec) and out.dtype == bool_ and out.shape.rank == 0):
        raise ValueError(
            "Invalid `predicate`. `predicate` must return a `fn.bool` scalar tensor, "
            f"but its return type is {structure.spec_text(out)}."
        )
    return func


SKIPPED = object()


def skipping(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``f`` returning ``SKIPPED`` where it fails (under ``ignore_errors``)."""

    def call(e: Any) -> Any:
        try:
            return f(e)
        except errors.OpError:
            return SKIPPED

    return call


class DatasetFunction:
    """A user function returning a dataset (``flat_map``, ``interleave``, ``group_by_window``'s
    reduce), traced once as TF's ``StructuredFunctionWrapper`` (the trace also gives the element
    spec of its result and rejects other results). Each element then runs the traced graph, which
    rebuilds the dataset from the element's values, so ``map_func``'s Python side effects fire
    once, at trace time, as in TF. Tensors of an enclosing Function it captured are inputs of the
    dataset, re-bound per run (``with_captures``)."""

    def __init__(self, map_func: Callable, spec: Any, name: str) -> None:
        if not callable(map_func):
            raise TypeError(f"`map_func` must be callable, got {map_func!r}.")
        self._map_func = map_func
        self._unpack = type(spec) is tuple
        func = Function(map_func, name=name)
        # The dataset the trace builds is kept: tf.distribute's auto-shard looks in it for a file
        # reader. The recording wraps AutoGraph's conversion, so map_func itself is converted.
        made: List[Any] = []
        converted = func._traced_callable()

        def recording(*args: Any, **kwargs: Any) -> Any:
            result = converted(*args, **kwargs)
            made.append(result)
            return result

        func._converted = recording
        self._concrete = func.get_concrete_function(*(spec if self._unpack else (spec,)))
        self._concrete._core._graph_errors = False  # errors surface as the iterator's
        out = self._concrete.structured_outputs
        if not isinstance(out, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(out)}.")
        self.element_spec = out.element_spec
        self.traced_output = made[-1] if made else None
        # Tensors of an enclosing trace the function captured are graph inputs of the dataset
        # (``graph_captures``), re-bound to the running graph's values (TF's other_arguments).
        self.in_graph = self.traced_output is not None

    def graph_captures(self) -> List[Any]:
        """The tensors of an enclosing trace the function captured (``TracedFunction``'s)."""
        if not self.in_graph:
            return []
        return [c for c in self._concrete._core.captures if _core.is_tensor(c) and not c._is_eager]

    def with_captures(self, values: Any) -> "DatasetFunction":
        """A copy whose captured graph tensors are replaced by ``values`` (the running graph's)."""
        core = self._concrete._core
        caps = [next(values) if _core.is_tensor(c) and not c._is_eager else c for c in core.captures]
        new = copy.copy(self)
        new._concrete = copy.copy(self._concrete)
        new._concrete._core = _core.ConcreteFunctionCore(core.graph, caps, core.name)
        return new

    def __call__(self, element: Any) -> Dataset:
        args = tuple(element) if self._unpack else (element,)
        if self.in_graph:
            try:
                return _core.variant_value(self._concrete(*args)._variant)
            except errors.OpError as e:
                error_text.tag(e, self)
                raise
        ds = self._map_func(*args)
        if not isinstance(ds, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(ds)}.")
        return ds


def dataset_function(map_func: Callable, spec: Any, name: str) -> Tuple[Callable[[Any], Dataset], Any]:
    """``map_func`` returning a dataset, traced once (``DatasetFunction``): ``(call, element_spec)``."""
    func = DatasetFunction(map_func, spec, name)
    return func, func.element_spec
