"""The fields of an ``ExtensionType`` (TF's ``extension_type_field``): which type annotations
are allowed, and how a value is type-checked and converted for a field (or for a field of the
type's ``Spec``), with TF's TypeError messages."""

from __future__ import annotations

import collections
import enum
import typing
from typing import Any, Dict, Sequence, Tuple

from fn import _core
from fn.dtypes import DType, as_dtype
from fn._tensor.tensor_shape import TensorShape, as_shape
from fn._tensor.tensor_spec import TensorSpec
from fn._tensor.tensor import Tensor

RESERVED_FIELD_NAMES = [
    "self",
    "Spec",
    "_type_spec",
    "_shape_invariant_to_type_spec",
    "_consumers",
    "value_type",
    "is_compatible_with",
    "most_specific_compatible_type",
    "_with_tensor_ranks_only",
    "_to_components",
    "_from_components",
    "_component_specs",
    "_to_tensor_list",
    "_from_tensor_list",
    "_from_compatible_tensor_list",
    "_flat_tensor_specs",
    "_serialize",
    "_deserialize",
    "_to_legacy_output_types",
    "_to_legacy_output_shapes",
    "_to_legacy_output_classes",
    "_keras_mask",
]

_NoneType = type(None)


class ImmutableDict(typing.Mapping):
    """The value of a ``Mapping`` field: a read-only mapping (TF's ``ImmutableDict``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._dict = dict(*args, **kwargs)

    def __getitem__(self, key: Any) -> Any:
        return self._dict[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._dict

    def __iter__(self) -> Any:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def __repr__(self) -> str:
        return f"ImmutableDict({self._dict})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, (dict, ImmutableDict)) and dict(self) == dict(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._dict.items(), key=lambda kv: repr(kv[0]))))

    __supported_by_tf_nest__ = True


class Sentinel:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


def is_composite_type(t: Any) -> bool:
    """A class whose values are made of tensors (RaggedTensor, SparseTensor, ExtensionTypes)."""
    return isinstance(t, type) and hasattr(t, "__fn_composite__") and not _is_spec_class(t)


def _is_spec_class(t: type) -> bool:
    return hasattr(t, "_fn_from_components") and not hasattr(t, "_fn_value_composite")


def is_spec(x: Any) -> bool:
    """A TypeSpec: TensorSpec or a composite's spec."""

    return isinstance(x, TensorSpec) or hasattr(type(x), "_fn_from_components") and not _is_value(x)


def _is_value(x: Any) -> bool:
    return getattr(type(x), "_fn_value_composite", False) or type(x).__name__ in ("RaggedTensor", "SparseTensor")


def _generic(t: Any) -> Tuple[Any, tuple]:
    return typing.get_origin(t), typing.get_args(t)


def is_generic_tuple(t: Any) -> bool:
    return _generic(t)[0] is tuple


def is_generic_union(t: Any) -> bool:
    return _generic(t)[0] is typing.Union


def is_generic_mapping(t: Any) -> bool:
    return _generic(t)[0] in (collections.abc.Mapping, dict)


def is_forward_ref(t: Any) -> bool:
    return isinstance(t, typing.ForwardRef)


class ExtensionTypeField(collections.namedtuple("ExtensionTypeField", ["name", "value_type", "default"])):
    """Metadata about a single field of an ``ExtensionType``."""

    NO_DEFAULT = Sentinel("ExtensionTypeField.NO_DEFAULT")

    def __new__(cls, name: str, value_type: Any, default: Any = NO_DEFAULT) -> "ExtensionTypeField":
        try:
            validate_field_value_type(value_type, allow_forward_references=True)
        except TypeError as e:
            raise TypeError(f"In field {name!r}: {e}") from e
        if default is not cls.NO_DEFAULT:
            default = convert_value(default, value_type, (f"default value for {name}",), Context.DEFAULT)
        return super().__new__(cls, name, value_type, default)

    @staticmethod
    def is_reserved_name(name: str) -> bool:
        return name in RESERVED_FIELD_NAMES or name.lower().startswith("_tf_extension_type")


def validate_field_value_type(
    value_type: Any, in_mapping_key: bool = False, allow_forward_references: bool = False
) -> None:
    """Raises TypeError unless ``value_type`` is an annotation ExtensionType supports."""

    if isinstance(value_type, str) or is_forward_ref(value_type):
        if allow_forward_references:
            return
        raise TypeError(f"Unresolved forward reference {value_type!r}")
    if value_type in (int, float, str, bytes, bool, None, _NoneType, DType):
        return
    if value_type in (Tensor, TensorShape) or is_composite_type(value_type):
        if in_mapping_key:
            raise TypeError(f"Mapping had a key {value_type.__name__!r} with type {type(value_type).__name__!r}")
    elif is_generic_tuple(value_type) or is_generic_union(value_type):
        args = typing.get_args(value_type)
        if len(args) == 2 and args[1] is Ellipsis and is_generic_tuple(value_type):
            validate_field_value_type(args[0], in_mapping_key, allow_forward_references)
        else:
            for arg in args:
                validate_field_value_type(arg, in_mapping_key, allow_forward_references)
    elif is_generic_mapping(value_type):
        key_type, val_type = typing.get_args(value_type)
        validate_field_value_type(key_type, True, allow_forward_references)
        validate_field_value_type(val_type, in_mapping_key, allow_forward_references)
    elif isinstance(value_type, type):
        raise TypeError(f"Unsupported type annotation {value_type.__name__!r}")
    else:
        raise TypeError(f"Unsupported type annotation {value_type!r}")


class Context(enum.Enum):
    VALUE = 1  # an ExtensionType field
    SPEC = 2  # an ExtensionType.Spec field
    DEFAULT = 3  # a default value for __init__


def convert_fields(fields: Sequence[ExtensionTypeField], values: Dict[str, Any], context: Context) -> None:
    """Type-checks and converts each field of ``values`` (in place)."""
    converted = {}
    if len(fields) != len(values):
        _report_field_mismatches(fields, values)
    for field in fields:
        if field.name not in values:
            _report_field_mismatches(fields, values)
        converted[field.name] = convert_value(values[field.name], field.value_type, (field.name,), context)
    values.update(converted)


def convert_value(value: Any, expected_type: Any, path: Tuple[str, ...], context: Context = Context.VALUE) -> Any:
    """``value`` type-checked and converted to ``expected_type`` (TypeError otherwise)."""

    where = "".join(path)
    if expected_type is None:
        expected_type = _NoneType
    if expected_type is Tensor:
        return _convert_tensor(value, where, context)
    if is_composite_type(expected_type):
        return _convert_composite(value, expected_type, where, context)
    if expected_type is TensorShape:
        try:
            return as_shape(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected 'tf.TensorShape', got {type(value).__name__!r}") from e
    if expected_type is DType:
        try:
            return as_dtype(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected 'tf.DType', got {type(value).__name__!r}") from e
    if expected_type in (int, float, bool, str, bytes, _NoneType):
        if not isinstance(value, expected_type):
            raise TypeError(f"{where}: expected {expected_type.__name__!r}, got {type(value).__name__!r}")
        return value
    if is_generic_tuple(expected_type):
        return _convert_tuple(value, expected_type, path, context)
    if is_generic_mapping(expected_type):
        return _convert_mapping(value, expected_type, path, context)
    if is_generic_union(expected_type):
        for option in typing.get_args(expected_type):
            try:
                return convert_value(value, option, path, context)
            except TypeError:
                pass
        raise TypeError(f"{where}: expected {expected_type!r}, got {type(value).__name__!r}")
    raise TypeError(f"{where}: Unsupported type annotation {expected_type!r}")


def _convert_tensor(value: Any, where: str, context: Context) -> Any:

    if context == Context.SPEC:
        if not isinstance(value, TensorSpec):
            raise TypeError(f"{where}: expected a TensorSpec, got {type(value).__name__!r}")
        return value
    if not _core.is_tensor(value):
        if context == Context.DEFAULT:
            return value
        try:
            from fn._ops.array_ops import convert_to_tensor

            value = convert_to_tensor(value)
        except (ValueError, TypeError) as e:
            raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}") from e
    return value


def _convert_composite(value: Any, expected_type: type, where: str, context: Context) -> Any:
    if context == Context.SPEC:
        vt = getattr(value, "value_type", None)
        if not (is_spec(value) and isinstance(vt, type) and issubclass(vt, expected_type)):
            raise TypeError(
                f"{where}: expected a TypeSpec for {expected_type.__name__!r}, got {type(value).__name__!r}"
            )
        return value
    if not isinstance(value, expected_type):
        raise TypeError(f"{where}: expected {expected_type.__name__!r}, got {type(value).__name__!r}")
    return value


def _convert_tuple(value: Any, expected_type: Any, path: Tuple[str, ...], context: Context) -> tuple:
    if not isinstance(value, typing.Sequence) or isinstance(value, str):
        raise TypeError(f"{''.join(path)}: expected tuple, got {type(value).__name__!r}")
    types = typing.get_args(expected_type)
    if len(types) == 2 and types[1] is Ellipsis:
        return tuple(convert_value(v, types[0], path + (f"[{i}]",), context) for i, v in enumerate(value))
    if len(value) != len(types):
        raise TypeError(f"{''.join(path)}: expected tuple with length {len(types)}, got {type(value).__name__!r})")
    return tuple(convert_value(v, t, path + (f"[{i}]",), context) for i, (v, t) in enumerate(zip(value, types)))


def _convert_mapping(value: Any, expected_type: Any, path: Tuple[str, ...], context: Context) -> ImmutableDict:
    if not isinstance(value, typing.Mapping):
        raise TypeError(f"{''.join(path)}: expected mapping, got {type(value).__name__!r}")
    key_type, value_type = typing.get_args(expected_type)
    return ImmutableDict(
        [
            (
                convert_value(k, key_type, path + ("[<key>]",), context),
                convert_value(v, value_type, path + (f"[{k!r}]",), context),
            )
            for k, v in value.items()
        ]
    )


def _report_field_mismatches(fields: Sequence[ExtensionTypeField], values: Dict[str, Any]) -> None:
    expected = {f.name for f in fields}
    actual = set(values)
    extra = actual - expected
    if extra:
        raise ValueError(f"Got unexpected fields: {extra}")
    missing = expected - actual
    if missing:
        raise ValueError(f"Missing required fields: {missing}")
