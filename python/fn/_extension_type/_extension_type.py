"""``tf.experimental.ExtensionType`` and ``BatchableExtensionType`` (TF's ``extension_type``):
user classes of typed, immutable fields, with a generated constructor, ``__validate__``, value
equality and a nested ``Spec`` class. Values cross ``fn.function`` (as arguments, results and
``input_signature`` entries), ``tf.nest`` with ``expand_composites``, ``cond``/``while_loop``,
``map_fn`` and ``tf.data`` as their component tensors (fn's ``__fn_composite__`` protocol)."""

from __future__ import annotations

import abc
import functools
import inspect
import typing
from typing import Any, Tuple, cast

from fn import _core
from fn._extension_type._field import ExtensionTypeField
from fn._extension_type._spec import IN_CONSTRUCTOR, ExtensionTypeSpec, _is_composite_value, components_of, new_object
from fn._extension_type._spec import _walk_specs
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._extension_type._field import Context, convert_fields
from fn._ops.array_ops import shape as shape_of, stack
from fn._ops.math_ops import equal, reduce_all
from fn._ops.math_ops import logical_not

_NO_DEFAULT = ExtensionTypeField.NO_DEFAULT
# Keras stores these on its inputs; TF lets them change.
_MUTABLE_KERAS_PROPERTIES = ["_keras_mask", "_keras_history", "_keras_history_checked"]


_REGISTRY: dict = {}


def registered_name(cls: type) -> str:
    """The name a SavedModel records for an ExtensionType: its ``__name__`` class attribute when
    set (TF's convention, ``__name__ = 'pkg.MaskedTensor'``), else module and qualified name."""
    name = cls.__dict__.get("__name__")
    return name if isinstance(name, str) else f"{cls.__module__}.{cls.__qualname__}"


def lookup_registered(name: str) -> Any:
    cls = _REGISTRY.get(name)
    if cls is None:
        raise ValueError(
            f"The SavedModel uses the ExtensionType {name!r}, which is not defined in this "
            "program: define (or import) the class before loading."
        )
    return cls


class ExtensionTypeMetaclass(abc.ABCMeta):
    """Turns each user subclass's annotations into fields, a constructor and a ``Spec``."""

    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        if not namespace.get("_tf_extension_type_do_not_transform_this_class", False):
            _check_field_annotations(cls)
            _add_extension_type_constructor(cls)
            _add_type_spec(cls)
            _REGISTRY[registered_name(cls)] = cls
        super().__init__(name, bases, namespace)


class ExtensionType(metaclass=ExtensionTypeMetaclass):
    """``tf.experimental.ExtensionType``: subclass it with annotated fields (``tf.Tensor``,
    composites, other ExtensionTypes, ``tf.TensorShape``, ``tf.DType``, Python scalars,
    ``Tuple``, ``Mapping``, ``Union``, ``Optional``)."""

    _tf_extension_type_do_not_transform_this_class = True
    _fn_value_composite = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is ExtensionType:
            raise AssertionError(
                "Cannot create an instance of ExtensionType because ExtensionType is an abstract base class."
            )

    _tf_extension_type_cached_fields = None

    @classmethod
    def _tf_extension_type_fields(cls) -> Tuple[ExtensionTypeField, ...]:
        if "_tf_extension_type_cached_fields" in cls.__dict__:
            return cast(Tuple[ExtensionTypeField, ...], cls._tf_extension_type_cached_fields)
        try:
            hints = typing.get_type_hints(cls)
            ok_to_cache = True
        except (NameError, AttributeError):
            hints = {}
            for base in reversed(cls.__mro__):
                hints.update(base.__dict__.get("__annotations__", {}))
            ok_to_cache = False
        fields = tuple(
            ExtensionTypeField(name, value_type, getattr(cls, name, _NO_DEFAULT)) for name, value_type in hints.items()
        )
        if ok_to_cache:
            type.__setattr__(cls, "_tf_extension_type_cached_fields", fields)
        return fields

    @classmethod
    def _tf_extension_type_has_field(cls, name: str) -> bool:
        return any(name == f.name for f in cls._tf_extension_type_fields())

    def _tf_extension_type_convert_fields(self) -> None:

        convert_fields(self._tf_extension_type_fields(), self.__dict__, Context.VALUE)

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self._tf_extension_type_fields())
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _MUTABLE_KERAS_PROPERTIES or (
            IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name)
        ):
            self.__dict__[name] = value
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")

    def __delattr__(self, name: str) -> None:
        if name in _MUTABLE_KERAS_PROPERTIES or (
            IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name)
        ):
            del self.__dict__[name]
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")

    def __getattr__(self, name: str) -> Any:
        if name in _MUTABLE_KERAS_PROPERTIES:
            return object.__getattribute__(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: Any) -> Any:
        """Equal when the types and specs match and every component tensor is equal (a bool
        tensor; ``False`` for values of other types)."""

        if type(self) is not type(other):
            return False
        if self._type_spec != other._type_spec:
            return False
        mine, theirs = components_of(self), components_of(other)
        if len(mine) != len(theirs):
            return False
        conditions = []
        for t1, t2 in zip(mine, theirs):
            same_shape = t1.shape.is_fully_defined() and t2.shape.is_fully_defined()
            if same_shape and t1.shape.as_list() != t2.shape.as_list():
                conditions.append(_core.convert_to_tensor(False))
                continue
            if not same_shape:
                s1, s2 = shape_of(t1), shape_of(t2)
                conditions.append(
                    reduce_all(equal(s1, s2)) if t1.shape.rank == t2.shape.rank else _core.convert_to_tensor(False)
                )
            conditions.append(reduce_all(equal(t1, t2)))
        if not conditions:
            return _core.convert_to_tensor(True)
        return reduce_all(stack(conditions))

    def __ne__(self, other: Any) -> Any:
        eq = self.__eq__(other)
        if _core.is_tensor(eq):
            return logical_not(eq)
        return not eq

    __hash__ = None  # type: ignore[assignment]  # values hold tensors; TF's ExtensionType is not hashable either

    def __validate__(self) -> None:
        """Perform post-construction validation."""

    @property
    def _type_spec(self) -> ExtensionTypeSpec:
        cached = self.__dict__.get("_tf_extension_type_cached_type_spec")
        if cached is None:
            cached = self.Spec.from_value(self)
            self.__dict__["_tf_extension_type_cached_type_spec"] = cached
        return cached

    # fn's composite protocol: (trace type, component tensors).
    def __fn_composite__(self) -> tuple:
        spec = self._type_spec
        return spec, spec._to_components(self)


class BatchableExtensionTypeSpec(ExtensionTypeSpec):
    """The Spec of a ``BatchableExtensionType``: batching adds an outer dimension to every
    tensor (and every ``TensorShape`` field), unbatching removes it."""

    _tf_extension_type_do_not_transform_this_class = True

    def _batch(self, batch_size: Any) -> "BatchableExtensionTypeSpec":
        return cast("BatchableExtensionTypeSpec", _map_spec(self, lambda s: _batched(s, batch_size)))

    def _unbatch(self) -> "BatchableExtensionTypeSpec":
        return cast("BatchableExtensionTypeSpec", _map_spec(self, _unbatched))


def _map_spec(spec: ExtensionTypeSpec, f: Any) -> ExtensionTypeSpec:

    def visit(x: Any) -> Any:
        return f(x)

    def field(x: Any) -> Any:
        if isinstance(x, TensorShape):
            return f(x)
        return _walk_specs(x, visit)

    return new_object(type(spec), {k: field(spec.__dict__[k]) for k in spec._fields()})


def _batched(s: Any, batch_size: Any) -> Any:

    if isinstance(s, TensorShape):
        return TensorShape([batch_size]).concatenate(s) if s.rank is not None else s
    if isinstance(s, TensorSpec):
        return TensorSpec(TensorShape([batch_size]).concatenate(s.shape) if s.shape.rank is not None else None, s.dtype)
    if hasattr(s, "_batch"):
        return s._batch(batch_size)
    raise ValueError(f"{s} does not support batching")


def _unbatched(s: Any) -> Any:

    if isinstance(s, TensorShape):
        return TensorShape(s.as_list()[1:]) if s.rank is not None else s
    if isinstance(s, TensorSpec):
        return TensorSpec(s.shape.as_list()[1:] if s.shape.rank is not None else None, s.dtype)
    if hasattr(s, "_unbatch"):
        return s._unbatch()
    raise ValueError(f"{s} does not support unbatching")


class BatchableExtensionType(ExtensionType):
    """``tf.experimental.BatchableExtensionType``: an ExtensionType that ``tf.data``,
    ``tf.map_fn`` and Keras can batch and unbatch (every tensor field gains/loses the outer
    dimension)."""

    _tf_extension_type_do_not_transform_this_class = True


# ---- building user classes --------------------------------------------------------------------


def _check_field_annotations(cls: type) -> None:
    annotations = cls.__dict__.get("__annotations__", {})
    for name, value in cls.__dict__.items():
        if name == "Spec":
            if not isinstance(value, type):
                raise ValueError(f"{cls.__qualname__}.Spec must be a nested class; got {value}.")
            if value.__bases__ != (object,) and not any(b.__name__ == "TypeSpec" for b in value.__bases__):
                raise ValueError(f"{cls.__qualname__}.Spec must be directly subclassed from tf.TypeSpec.")
        elif ExtensionTypeField.is_reserved_name(name):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved.")
    for name in annotations:
        if ExtensionTypeField.is_reserved_name(name):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved.")
    for key, value in cls.__dict__.items():
        if not (
            key in annotations
            or callable(value)
            or key.startswith("_abc_")
            or key == "_tf_extension_type_fields"
            or (key.startswith("__") and key.endswith("__"))
            or isinstance(value, (property, classmethod, staticmethod))
        ):
            raise ValueError(
                f"The field annotations for {cls.__name__} are invalid. Field {key} is missing a type annotation."
            )


def _add_extension_type_constructor(cls: type) -> None:
    if "__init__" in cls.__dict__:
        _wrap_user_constructor(cls)
    else:
        _build_constructor(cls)


def _wrap_user_constructor(cls: Any) -> None:
    user_constructor = cls.__init__

    @functools.wraps(user_constructor)
    def wrapped_init(self: Any, *args: Any, **kwargs: Any) -> None:
        self.__dict__[IN_CONSTRUCTOR] = True
        user_constructor(self, *args, **kwargs)
        del self.__dict__[IN_CONSTRUCTOR]
        self._tf_extension_type_convert_fields()
        self.__validate__()

    type.__setattr__(cls, "__init__", wrapped_init)


def _build_constructor(cls: Any) -> None:
    fields = cls._tf_extension_type_fields()
    got_default, keyword_only_start = False, len(fields)
    for i, f in enumerate(fields):
        if got_default:
            if f.default is _NO_DEFAULT:
                keyword_only_start = i
                break
        elif f.default is not _NO_DEFAULT:
            got_default = True
    params = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD if i < keyword_only_start else inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if f.default is _NO_DEFAULT else f.default,
            annotation=f.value_type,
        )
        for i, f in enumerate(fields)
    ]
    __init__ = _fields_init(inspect.Signature(params))
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params
    )
    type.__setattr__(cls, "__init__", __init__)


def _fields_init(signature: inspect.Signature) -> Any:
    """An ``__init__`` binding its arguments to ``signature``'s fields, then converting and
    validating them (TF's generated constructor)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        self.__dict__.update(bound.arguments)
        self._tf_extension_type_convert_fields()
        self.__validate__()

    return __init__


def _build_spec_constructor(cls: Any) -> None:
    params = [
        inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in cls._tf_extension_type_fields()
    ]
    type.__setattr__(cls, "__init__", _fields_init(inspect.Signature(params)))


def _add_type_spec(cls: Any) -> None:
    spec_name = cls.__name__ + ".Spec"
    spec_qualname = cls.__qualname__ + ".Spec"
    spec_dict = {"value_type": cls, "__module__": cls.__module__}
    user_spec = cls.__dict__.get("Spec", None)
    if user_spec is not None:
        for name, value in user_spec.__dict__.items():
            if ExtensionTypeField.is_reserved_name(name):
                raise ValueError(f"TypeSpec {spec_qualname} uses reserved name '{name}'.")
            if cls._tf_extension_type_has_field(name):
                raise ValueError(
                    f"TypeSpec {spec_qualname} defines a variable '{name}' which shadows a field in {cls.__qualname__}"
                )
            if name in ("__module__", "__dict__", "__weakref__"):
                continue
            spec_dict[name] = value
    base = BatchableExtensionTypeSpec if issubclass(cls, BatchableExtensionType) else ExtensionTypeSpec
    spec = type(spec_name, (base,), spec_dict)
    spec.__qualname__ = spec_qualname
    type.__setattr__(cls, "Spec", spec)
    if "__init__" in spec.__dict__:
        _wrap_user_constructor(spec)
    else:
        _build_spec_constructor(spec)


# ---- helpers of tf.experimental.extension_type and tf.type_spec_from_value ----------------------


def as_dict(value: ExtensionType) -> dict:
    """``tf.experimental.extension_type.as_dict``: the fields of ``value`` as a dict."""
    return {f.name: getattr(value, f.name) for f in value._tf_extension_type_fields()}


def type_spec_from_value(value: Any) -> Any:
    """``tf.type_spec_from_value``: the TypeSpec of a tensor, composite or ExtensionType."""

    if _core.is_tensor(value):
        return TensorSpec(value.shape, value.dtype)
    if getattr(type(value), "_fn_variable", False):  # TF: a VariableSpec (dtype, shape, trainable)
        return value.__tf_tracing_type__(None)
    if _is_composite_value(value):
        return value.__fn_composite__()[0]
    try:
        from fn._ops.array_ops import convert_to_tensor

        t = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type {type(value)}.") from None
    return TensorSpec(t.shape, t.dtype)
