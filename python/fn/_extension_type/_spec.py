"""``tf.experimental.ExtensionTypeSpec``: the TypeSpec of an ExtensionType, and fn's trace type
for it. A spec holds the value's fields with tensors replaced by ``TensorSpec``s and composites
by their specs; its components are the value's tensors, flattened through nested composites
(fields in order, mapping keys sorted as ``tf.nest`` sorts them)."""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence

from fn import _core
from fn._extension_type._field import Context, ImmutableDict, convert_fields
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec

IN_CONSTRUCTOR = "_tf_extension_type_in_constructor"


def new_object(cls: type, fields: dict) -> Any:
    """An instance of ``cls`` with ``fields`` as its ``__dict__`` (no constructor runs)."""
    value: Any = object.__new__(cls)
    value.__dict__.update(fields)
    return value


def _is_composite_value(x: Any) -> bool:
    return hasattr(type(x), "__fn_composite__") and not _is_spec(x)


def _is_spec(x: Any) -> bool:
    return isinstance(x, TensorSpec) or (
        hasattr(type(x), "_fn_from_components")
        and not getattr(type(x), "_fn_value_composite", False)
        and type(x).__name__ not in ("RaggedTensor", "SparseTensor")
    )


def _children(x: Any) -> Optional[List[Any]]:
    if isinstance(x, (ImmutableDict, dict)):
        return [x[k] for k in sorted(x, key=repr)]
    if isinstance(x, (tuple, list)):
        return list(x)
    return None


def component_specs_of(spec: Any) -> List[TensorSpec]:
    """The flat TensorSpecs of a spec (a TensorSpec is its own)."""
    if isinstance(spec, TensorSpec):
        return [spec]
    if isinstance(spec, ExtensionTypeSpec):
        return spec._component_specs()
    return list(spec.__fn_composite__()[1])


def components_of(value: Any) -> List[Any]:
    """The flat tensors of a tensor or composite value."""
    if _core.is_tensor(value):
        return [value]
    spec, parts = value.__fn_composite__()
    out: List[Any] = []
    for p in parts:
        out.extend(components_of(p) if not _core.is_tensor(p) else [p])
    return out


def _walk_specs(x: Any, visit: Callable[[Any], Any]) -> Any:
    """Rebuilds a spec field replacing each TensorSpec/composite spec by ``visit(spec)``."""
    if _is_spec(x):
        return visit(x)
    kids = _children(x)
    if kids is None:
        return x
    if isinstance(x, (ImmutableDict, dict)):
        keys = sorted(x, key=repr)
        new = dict(zip(keys, (_walk_specs(c, visit) for c in kids)))
        return ImmutableDict([(k, new[k]) for k in x])
    return type(x)(_walk_specs(c, visit) for c in kids)


def _freeze(x: Any) -> Any:
    """A hashable form of a serialized field."""
    if isinstance(x, (ImmutableDict, dict)):
        return ("dict",) + tuple((k, _freeze(x[k])) for k in sorted(x, key=repr))
    if isinstance(x, (tuple, list)):
        return (type(x).__name__,) + tuple(_freeze(v) for v in x)
    if isinstance(x, TensorShape):
        return ("shape", None if x.rank is None else tuple(x.as_list()))
    return x


def _relate(a: Any, b: Any, leaf: Callable[[Any, Any], Any]) -> Any:
    """Walks two spec fields in parallel; ``leaf`` decides for specs and shapes; other values
    must be equal. Returns the rebuilt field or raises ``_Mismatch``."""
    if _is_spec(a) or _is_spec(b) or isinstance(a, TensorShape) or isinstance(b, TensorShape):
        return leaf(a, b)
    ka, kb = _children(a), _children(b)
    if ka is None or kb is None:
        if type(a) is not type(b) or a != b:
            raise _Mismatch()
        return a
    if type(a) is not type(b) or len(ka) != len(kb):
        raise _Mismatch()
    if isinstance(a, (ImmutableDict, dict)):
        if sorted(a, key=repr) != sorted(b, key=repr):
            raise _Mismatch()
        keys = sorted(a, key=repr)
        new = {k: _relate(a[k], b[k], leaf) for k in keys}
        return ImmutableDict([(k, new[k]) for k in a])
    return type(a)(_relate(x, y, leaf) for x, y in zip(ka, kb))


class _Mismatch(Exception):
    pass


def _subtype_leaf(a: Any, b: Any) -> Any:
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        if not a.is_subtype_of(b):
            raise _Mismatch()
        return a
    if type(a) is not type(b):
        raise _Mismatch()
    if isinstance(a, TensorSpec):
        if a.dtype != b.dtype or not a.shape.is_subtype_of(b.shape):
            raise _Mismatch()
        return a
    if not a.is_subtype_of(b):
        raise _Mismatch()
    return a


def _supertype_leaf(a: Any, b: Any) -> Any:
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return a.most_specific_compatible_shape(b)
    if type(a) is not type(b):
        raise _Mismatch()
    if isinstance(a, TensorSpec):
        if a.dtype != b.dtype:
            raise _Mismatch()
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    s = a.most_specific_common_supertype([b])
    if s is None:
        raise _Mismatch()
    return s


def _compatible_leaf(a: Any, b: Any) -> Any:
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        if not a.is_compatible_with(b):
            raise _Mismatch()
        return a
    if type(a) is not type(b):
        raise _Mismatch()
    if isinstance(a, TensorSpec):
        if a.dtype != b.dtype or not a.shape.is_compatible_with(b.shape):
            raise _Mismatch()
        return a
    if not a.is_compatible_with(b):
        raise _Mismatch()
    return a


class ExtensionTypeSpec:
    """``tf.experimental.ExtensionTypeSpec``: base class of each ExtensionType's ``Spec``."""

    _tf_extension_type_do_not_transform_this_class = True
    value_type: Any = None

    # ---- fields -----------------------------------------------------------------------------

    @classmethod
    def _tf_extension_type_fields(cls) -> Any:
        return cls.value_type._tf_extension_type_fields()

    @classmethod
    def _tf_extension_type_has_field(cls, name: str) -> bool:
        return any(name == f.name for f in cls._tf_extension_type_fields())

    def _tf_extension_type_convert_fields(self) -> None:
        convert_fields(self._tf_extension_type_fields(), self.__dict__, Context.SPEC)

    def __validate__(self) -> None:
        """Perform post-construction validation."""

    def __setattr__(self, name: str, value: Any) -> None:
        if IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name):
            self.__dict__[name] = value
        else:
            raise AttributeError(
                f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionTypeSpec."
            )

    def __delattr__(self, name: str) -> None:
        if IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name):
            del self.__dict__[name]
        else:
            raise AttributeError(
                f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionTypeSpec."
            )

    def _fields(self) -> List[str]:
        return [f.name for f in self._tf_extension_type_fields()]

    def _serialize(self) -> tuple:
        return tuple((f, _to_dicts(self.__dict__[f])) for f in self._fields())

    @classmethod
    def _deserialize(cls, state: Any) -> "ExtensionTypeSpec":
        return new_object(cls, {k: _to_immutable(v) for k, v in state})

    def __reduce__(self) -> Any:
        return _deserialize_for_reduce, (self.value_type, self._serialize())

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._serialize())
        return f"{type(self).__qualname__}({fields})"

    # ---- TypeSpec / TraceType API -----------------------------------------------------------

    @classmethod
    def from_value(cls, value: Any) -> "ExtensionTypeSpec":
        cached = value.__dict__.get("_tf_extension_type_cached_type_spec")
        if cached is not None:
            return cached
        fields = {
            k: _replace_tensor_with_spec(v)
            for k, v in value.__dict__.items()
            if k != "_tf_extension_type_cached_fields"
        }
        return new_object(cls, fields)

    def _key(self) -> tuple:
        return (type(self),) + tuple((f, _freeze(self.__dict__[f])) for f in self._fields())

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self._key() == other._key()

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    def _relate(self, other: Any, leaf: Callable) -> Any:
        if type(self) is not type(other):
            raise _Mismatch()
        return {f: _relate(self.__dict__[f], other.__dict__[f], leaf) for f in self._fields()}

    def is_subtype_of(self, other: Any) -> bool:
        """``TraceType.is_subtype_of``: same type and fields, each tensor's shape at least as specific."""
        try:
            self._relate(other, _subtype_leaf)
            return True
        except _Mismatch:
            return False

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional["ExtensionTypeSpec"]:
        """``TraceType.most_specific_common_supertype``: shapes generalised field by field."""
        result: Any = self
        try:
            for o in others:
                result = new_object(type(self), result._relate(o, _supertype_leaf))
        except _Mismatch:
            return None
        return result

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """``TypeSpec.is_compatible_with``."""
        other = (
            spec_or_value
            if isinstance(spec_or_value, ExtensionTypeSpec)
            else (spec_or_value._type_spec if hasattr(spec_or_value, "_type_spec") else None)
        )
        if other is None:
            return False
        try:
            self._relate(other, _compatible_leaf)
            return True
        except _Mismatch:
            return False

    def most_specific_compatible_type(self, other: Any) -> "ExtensionTypeSpec":
        result = self.most_specific_common_supertype([other])
        if result is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return result

    # ---- components (fn's composite protocol) -----------------------------------------------

    def _component_specs(self) -> List[TensorSpec]:
        out: List[TensorSpec] = []

        def visit(s: Any) -> Any:
            out.extend(component_specs_of(s))
            return s

        for f in self._fields():
            _walk_specs(self.__dict__[f], visit)
        return out

    def _to_components(self, value: Any) -> List[Any]:
        out: List[Any] = []
        for f in self._fields():
            _flatten_value(value.__dict__[f], out)
        return out

    def _from_components(self, components: Sequence[Any]) -> Any:
        return self._fn_from_components(list(components))

    def _fn_from_components(self, components: List[Any]) -> Any:
        it: Iterator[Any] = iter(components)

        def visit(s: Any) -> Any:
            if isinstance(s, TensorSpec):
                return next(it)
            n = len(component_specs_of(s))
            parts = [next(it) for _ in range(n)]
            return s._fn_from_components(parts)

        fields = {f: _walk_specs(self.__dict__[f], visit) for f in self._fields()}
        if next(it, None) is not None:
            raise ValueError(
                "Cannot build an ExtensionType instance from components because more "
                "components are provided than the number expected by the type spec."
            )
        fields["_tf_extension_type_cached_type_spec"] = self
        return new_object(self.value_type, fields)

    def _with_component_specs(self, specs: List[TensorSpec]) -> "ExtensionTypeSpec":
        """This spec with its component TensorSpecs replaced (in ``_component_specs`` order)."""
        it: Iterator[Any] = iter(specs)

        def visit(s: Any) -> Any:
            if isinstance(s, TensorSpec):
                return next(it)
            if isinstance(s, ExtensionTypeSpec):
                return s._with_component_specs([next(it) for _ in s._component_specs()])
            n = len(component_specs_of(s))
            for _ in range(n):
                next(it)
            return s

        return new_object(type(self), {f: _walk_specs(self.__dict__[f], visit) for f in self._fields()})

    def __fn_composite__(self) -> tuple:
        # As an input_signature entry (or a traced argument's type): its component specs.
        return self, self._component_specs()

    def _fn_component_dtypes(self) -> List[Any]:
        return [s.dtype for s in self._component_specs()]


def _flatten_value(x: Any, out: List[Any]) -> None:
    if _core.is_tensor(x):
        out.append(x)
    elif _is_composite_value(x):
        out.extend(components_of(x))
    else:
        kids = _children(x)
        if kids is not None:
            for c in kids:
                _flatten_value(c, out)


def _replace_tensor_with_spec(value: Any) -> Any:
    if _core.is_tensor(value):
        return TensorSpec(value.shape, value.dtype)
    if _is_composite_value(value):
        return value.__fn_composite__()[0]
    if isinstance(value, ImmutableDict):
        return ImmutableDict([(k, _replace_tensor_with_spec(v)) for k, v in value.items()])
    if isinstance(value, tuple):
        return tuple(_replace_tensor_with_spec(v) for v in value)
    return value


def _to_dicts(x: Any) -> Any:
    if isinstance(x, (ImmutableDict, dict)):
        return {k: _to_dicts(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_to_dicts(v) for v in x)
    return x


def _to_immutable(x: Any) -> Any:
    if isinstance(x, (ImmutableDict, dict)):
        return ImmutableDict([(k, _to_immutable(v)) for k, v in x.items()])
    if isinstance(x, tuple):
        return tuple(_to_immutable(v) for v in x)
    return x


def _deserialize_for_reduce(value_type: Any, serialization: Any) -> Any:
    return value_type.Spec._deserialize(serialization)
