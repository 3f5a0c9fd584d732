"""``tf.experimental``: the ragged shape classes (``DynamicRaggedShape``, ``RowPartition``),
``tf.experimental.numpy``, the ExtensionType family and type-based dispatch,
``tf.experimental.Optional``, and fn's ``install_as_tensorflow``."""

from __future__ import annotations

from typing import Any

from fn._ragged._dynamic_shape import DynamicRaggedShape
from fn._ragged._row_partition import RowPartition
from fn.experimental import numpy
from fn._extension_type import BatchableExtensionType, ExtensionType, ExtensionTypeSpec
from fn._ops.dispatch import (
    dispatch_for_api,
    dispatch_for_binary_elementwise_apis,
    dispatch_for_binary_elementwise_assert_apis,
    dispatch_for_unary_elementwise_apis,
    unregister_dispatch_for,
)
from fn.experimental import extension_type
from fn._tf_compat import install_as_tensorflow
from fn._data.optional import Optional


def __getattr__(name: str) -> Any:
    if name == "dtensor":  # imported by Keras' TF backend; see fn._tf_compat._dtensor
        from fn._tf_compat import _dtensor

        return _dtensor
    raise AttributeError(f"module 'fn.experimental' has no attribute '{name}'")


from fn._public import export as _export

_export(globals())
