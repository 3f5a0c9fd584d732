"""``tf.experimental.ExtensionType`` and its family (implementation package): ``_field`` field
annotations and conversion, ``_spec`` the TypeSpec/trace type, ``_extension_type`` the value
classes and how user classes are built. Dispatch of public ops lives in ``fn._ops.dispatch``."""

from fn._extension_type._extension_type import (
    BatchableExtensionType,
    BatchableExtensionTypeSpec,
    ExtensionType,
    as_dict,
    type_spec_from_value,
)
from fn._extension_type._spec import ExtensionTypeSpec

__all__ = [
    "BatchableExtensionType",
    "BatchableExtensionTypeSpec",
    "ExtensionType",
    "ExtensionTypeSpec",
    "as_dict",
    "type_spec_from_value",
]
