"""Element structures of ``fn.data`` (``tf.data``'s ``structure`` and ``nest`` helpers), and the
trace types of datasets and iterators (``tf.data.DatasetSpec``, ``tf.data.IteratorSpec``).

``tf.data`` nests like ``tf.nest`` except that *lists are leaves*: a list in an element is
converted to one tensor (``from_tensor_slices([[1, 2], [3, 4]])`` slices a 2-D tensor), while
tuples, namedtuples and dicts are structures.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, cast

from fn import _core
from fn.dtypes import as_dtype, variant
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn.types.experimental import TraceType
from fn._data import registry
from fn._extension_type._spec import ExtensionTypeSpec, components_of
from fn._ragged import RaggedTensorSpec, RaggedTensor
from fn._sparse.sparse_tensor import SparseTensorSpec, SparseTensor


# ---------------------------------------------------------------- nesting


class NoneTensorSpec(TraceType):
    """``tf.NoneTensorSpec``: the spec of a ``None`` component of an element (TF's NoneTensor).
    It has no component tensors: ``None`` nests as an empty structure (no leaves), so it passes
    through slicing, batching, map functions and iterators unchanged."""

    def is_subtype_of(self, other: Any) -> bool:
        return isinstance(other, NoneTensorSpec)

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional[Any]:
        return self if all(isinstance(o, NoneTensorSpec) for o in others) else None

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NoneTensorSpec)

    def __hash__(self) -> int:
        return hash("NoneTensorSpec")

    def __repr__(self) -> str:
        return "NoneTensorSpec()"


def _is_none(x: Any) -> bool:
    return x is None or isinstance(x, NoneTensorSpec)


def is_structure(x: Any) -> bool:
    """Tuples (and namedtuples) and dicts nest; everything else, lists included, is a leaf."""
    return isinstance(x, (tuple, dict))


def _is_extension(x: Any) -> bool:
    """An ExtensionType value or spec: crosses tf.data as its component tensors/specs."""
    return getattr(type(x), "_fn_value_composite", False) or isinstance(x, ExtensionTypeSpec)


def _extension_spec(x: Any) -> Any:
    return x if not getattr(type(x), "_fn_value_composite", False) else x._type_spec


def flatten(x: Any) -> List[Any]:
    """The leaves of ``x`` in order (dicts by sorted key, as ``tf.nest``; ExtensionTypes as their
    component tensors or specs)."""
    if _is_extension(x):
        return list(x._component_specs()) if x is _extension_spec(x) else components_of(x)
    if isinstance(x, tuple):
        out: List[Any] = []
        for v in x:
            out.extend(flatten(v))
        return out
    if isinstance(x, dict):
        out = []
        for k in sorted(x):
            out.extend(flatten(x[k]))
        return out
    if _is_none(x):
        return []
    return [x]


def pack(structure: Any, flat: Sequence[Any]) -> Any:
    """``flat`` rebuilt with the structure of ``structure`` (the inverse of ``flatten``)."""
    it = iter(flat)
    out = _pack(structure, it)
    return out


def _pack(s: Any, it: Any) -> Any:
    if _is_none(s):
        return None
    if _is_extension(s):
        spec = _extension_spec(s)
        items = [next(it) for _ in spec._component_specs()]
        if all(isinstance(i, TensorSpec) for i in items):
            return spec._with_component_specs(items)
        return spec._fn_from_components(items)
    if isinstance(s, tuple):
        items = [_pack(v, it) for v in s]
        return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
    if isinstance(s, dict):
        vals = {k: _pack(s[k], it) for k in sorted(s)}
        return type(s)((k, vals[k]) for k in s) if type(s) is not dict else {k: vals[k] for k in s}
    return next(it)


def map_structure(fn: Callable[[Any], Any], x: Any) -> Any:
    return pack(x, [fn(v) for v in flatten(x)])


def map_specs(tensor_fn: Callable[[TensorSpec], Any], extension_fn: Callable[[Any], Any], spec: Any) -> Any:
    """An element spec with each TensorSpec mapped by ``tensor_fn`` and each ExtensionType spec
    by ``extension_fn`` (batching and unbatching use the spec's own rules)."""
    if _is_none(spec):
        return NoneTensorSpec()
    if _is_extension(spec):
        return extension_fn(spec)
    if isinstance(spec, tuple):
        items = [map_specs(tensor_fn, extension_fn, v) for v in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
    if isinstance(spec, dict):
        return type(spec)((k, map_specs(tensor_fn, extension_fn, v)) for k, v in spec.items())
    return tensor_fn(spec)


def _unbatchable(spec: Any) -> Any:
    if not hasattr(spec, "_unbatch"):
        raise ValueError(f"{type(spec).__qualname__} is not batchable: use a BatchableExtensionType")
    return spec._unbatch()


def batched_spec(spec: Any, lead: Any) -> Any:
    """``spec`` with an outer dimension ``lead`` (None when unknown)."""

    def ext(s: Any) -> Any:
        if not hasattr(s, "_batch"):
            raise ValueError(f"{type(s).__qualname__} is not batchable: use a BatchableExtensionType")
        return s._batch(lead)

    return map_specs(lambda s: _batched_leaf(s, lead), ext, spec)


def _batched_leaf(s: Any, lead: Any) -> Any:
    """A tensor, SparseTensor or RaggedTensor spec with an outer dimension (TF: a batch of ragged
    rows is ragged one more time; a batch of SparseTensors is one SparseTensor)."""
    shape = TensorShape([lead]).concatenate(s.shape)
    if isinstance(s, RaggedTensorSpec):
        return RaggedTensorSpec(shape, s.dtype, s.ragged_rank + 1, s.row_splits_dtype)
    if isinstance(s, SparseTensorSpec):
        return SparseTensorSpec(shape, s.dtype)
    return TensorSpec(shape, s.dtype)


def _unbatched_leaf(s: Any) -> Any:
    """One row's spec of a tensor, SparseTensor or RaggedTensor spec (a ragged row loses a ragged
    dimension)."""
    if isinstance(s, SparseTensorSpec):
        return SparseTensorSpec(s.shape[1:], s.dtype)
    if isinstance(s, RaggedTensorSpec):
        return RaggedTensorSpec(s.shape[1:], s.dtype, s.ragged_rank - 1, s.row_splits_dtype)
    return TensorSpec(s.shape[1:] if s.shape.rank is not None else None, s.dtype)


def unbatched_spec(spec: Any) -> Any:
    """``spec`` without its outer dimension."""
    return map_specs(_unbatched_leaf, _unbatchable, spec)


def same_structure(a: Any, b: Any) -> bool:
    if _is_none(a) or _is_none(b):
        return _is_none(a) and _is_none(b)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same_structure(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and sorted(a) == sorted(b)
            and all(same_structure(a[k], b[k]) for k in a)
        )
    return True


# ---------------------------------------------------------------- values and specs


def is_composite(value: Any) -> bool:
    """A SparseTensor, RaggedTensor or Optional leaf (kept as is; its spec is its own TypeSpec)."""
    return isinstance(value, (SparseTensor, RaggedTensor)) or getattr(type(value), "_fn_is_optional", False)


def to_tensor(value: Any, dtype: Any = None) -> Any:
    """One leaf as an eager tensor (``tf.convert_to_tensor``); composite tensors stay."""
    if is_composite(value):
        return value
    if _core.is_tensor(value):
        if dtype is not None and value.dtype != as_dtype(dtype):
            raise TypeError(f"Expected a {as_dtype(dtype).name} tensor, got {value.dtype.name}.")
        return value
    return _core.convert_to_tensor(value, None if dtype is None else as_dtype(dtype))


def normalize_element(element: Any) -> Any:
    """Every leaf of ``element`` converted to a tensor."""
    return map_structure(to_tensor, element)


def spec_of(tensor: Any) -> Any:
    if is_composite(tensor):
        if getattr(type(tensor), "_fn_is_optional", False):
            return tensor.__fn_composite__()[0]  # its OptionalSpec
        return SparseTensorSpec.from_value(tensor) if isinstance(tensor, SparseTensor) else tensor._type_spec
    return TensorSpec(tensor.shape, tensor.dtype)


def spec_from_value(element: Any) -> Any:
    return _none_specs(map_structure(spec_of, element))


def _map_nested(spec: Any, leaf: Callable[[Any], Any]) -> Any:
    """``spec`` rebuilt with ``leaf`` applied to every element of its tuples, namedtuples and dicts
    (None included: each caller decides what a None means)."""
    if isinstance(spec, tuple):
        items = [_map_nested(v, leaf) for v in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
    if isinstance(spec, dict):
        return type(spec)((k, _map_nested(v, leaf)) for k, v in spec.items())
    return leaf(spec)


def none_as_python(spec: Any) -> Any:
    """``spec`` with each ``NoneTensorSpec`` as ``None`` (what a traced function receives)."""
    return None if _is_none(spec) else _map_nested(spec, lambda s: None if _is_none(s) else s)


def _none_specs(spec: Any) -> Any:
    """``spec`` with its ``None`` components as ``NoneTensorSpec()`` (as TF prints them)."""
    return _map_nested(spec, lambda s: NoneTensorSpec() if s is None else s)


def _composite_spec(s: Any) -> bool:
    return hasattr(type(s), "_component_specs") and hasattr(type(s), "_fn_from_components") and not _is_extension(s)


def flatten_components(x: Any) -> List[Any]:
    """``flatten`` with SparseTensors and RaggedTensors (and their specs) taken apart into their
    component tensors (specs): what crosses a graph op (``IteratorGetNext`` in a Function)."""
    out: List[Any] = []
    for leaf in flatten(x):
        if is_composite(leaf):
            out.extend(leaf.__fn_composite__()[1])
        elif _composite_spec(leaf):
            out.extend(leaf._component_specs())
        else:
            out.append(leaf)
    return out


def pack_components(spec: Any, flat: Sequence[Any]) -> Any:
    """The inverse of ``flatten_components`` for values of ``spec``."""
    it = iter(flat)
    leaves = []
    for s in flatten(spec):
        if _composite_spec(s):
            leaves.append(s._fn_from_components([next(it) for _ in s._component_specs()]))
        else:
            leaves.append(next(it))
    return pack(spec, leaves)


def flat_dtypes(spec: Any) -> List[Any]:
    return [s.dtype for s in flatten(spec)]


def flat_shapes(spec: Any) -> List[TensorShape]:
    return [s.shape for s in flatten(spec)]


def spec_text(spec: Any) -> str:
    """How TF prints an element_spec: TensorSpecs inside tuples and dicts."""
    if isinstance(spec, tuple) and not hasattr(spec, "_fields"):
        inner = ", ".join(spec_text(s) for s in spec)
        return f"({inner},)" if len(spec) == 1 else f"({inner})"
    if isinstance(spec, tuple):
        fields = ", ".join(f"{n}={spec_text(v)}" for n, v in zip(cast(Any, spec)._fields, spec))
        return f"{type(spec).__name__}({fields})"
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {spec_text(v)}" for k, v in spec.items()) + "}"
    return repr(spec)


def _spec_key(spec: Any) -> Any:
    """A hashable description of a nested spec (names left out, as TF's DatasetSpec does)."""
    if _is_none(spec):
        return ("None",)
    if isinstance(spec, tuple):
        return (type(spec).__name__,) + tuple(_spec_key(s) for s in spec)
    if isinstance(spec, dict):
        return ("dict",) + tuple((k, _spec_key(spec[k])) for k in sorted(spec))
    if not _has_dtype(spec):  # an OptionalSpec: compared as a whole
        return ("spec", spec)
    return (spec.dtype.name, spec.shape)


def _has_dtype(spec: Any) -> bool:
    return hasattr(spec, "dtype") and hasattr(spec, "shape")


def _spec_subtype(a: Any, b: Any) -> bool:
    if not same_structure(a, b):
        return False
    return all(
        x.dtype == y.dtype and x.shape.is_subtype_of(y.shape) if _has_dtype(x) and _has_dtype(y) else x == y
        for x, y in zip(flatten(a), flatten(b))
    )


def _spec_supertype(a: Any, b: Any) -> Optional[Any]:
    if not same_structure(a, b):
        return None
    out = []
    for x, y in zip(flatten(a), flatten(b)):
        if not (_has_dtype(x) and _has_dtype(y)):
            if x != y:
                return None
            out.append(x)
            continue
        if x.dtype != y.dtype:
            return None
        if x.shape.rank != y.shape.rank:
            shape = TensorShape(None)
        elif x.shape.rank is None:
            shape = TensorShape(None)
        else:
            shape = TensorShape([d if d == e else None for d, e in zip(x.shape.as_list(), y.shape.as_list())])
        out.append(TensorSpec(shape, x.dtype))
    return _none_specs(pack(a, out))


# ---------------------------------------------------------------- trace types

VARIANT_SPEC = TensorSpec([], variant)


class _HandleSpec(TraceType):
    """Shared by DatasetSpec and IteratorSpec: a trace type made of an element spec, whose
    value reaches a graph as one scalar variant tensor (the handle)."""

    _label = ""

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec
        self._key = _spec_key(element_spec)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def is_subtype_of(self, other: Any) -> bool:
        return type(other) is type(self) and _spec_subtype(self._element_spec, other._element_spec)

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional[Any]:
        spec = self._element_spec
        for o in others:
            if type(o) is not type(self):
                return None
            spec = _spec_supertype(spec, o._element_spec)
            if spec is None:
                return None
        return type(self)(spec)

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and self._key == other._key

    def __hash__(self) -> int:
        return hash((self._label, self._key))

    # fn's composite protocol (fn.function): the trace type and the component tensors/specs.
    def __fn_composite__(self) -> tuple:
        return self, [VARIANT_SPEC]


class DatasetSpec(_HandleSpec):
    """The trace type of a Dataset argument (``tf.data.DatasetSpec``): its element spec, so two
    datasets with the same element spec share a traced graph."""

    _label = "DatasetSpec"

    def _fn_from_components(self, components: List[Any]) -> Any:
        return registry.lookup("_VariantDataset")(components[0], self._element_spec)

    def __repr__(self) -> str:
        return f"DatasetSpec({spec_text(self._element_spec)}, TensorShape([]))"


class IteratorSpec(_HandleSpec):
    """The trace type of an Iterator argument (``tf.data.IteratorSpec``)."""

    _label = "IteratorSpec"

    # fn._data.iterator_ops (which imports this module) sets its SymbolicIterator class here.
    _symbolic_iterator: Any = None

    def _fn_from_components(self, components: List[Any]) -> Any:
        return IteratorSpec._symbolic_iterator(components[0], self._element_spec)

    def __repr__(self) -> str:
        return f"IteratorSpec({spec_text(self._element_spec)},)"
