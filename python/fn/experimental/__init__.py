"""``tf.experimental``: the ragged shape classes (``DynamicRaggedShape``, ``RowPartition``) and
``tf.experimental.numpy``, the ExtensionType family and type-based dispatch."""
from __future__ import annotations

from fn._ragged._dynamic_shape import DynamicRaggedShape
from fn._ragged._row_partition import RowPartition
from fn.experimental import numpy
from fn._extension_type import BatchableExtensionType, ExtensionType, ExtensionTypeSpec
from fn._ops.dispatch import (dispatch_for_api, dispatch_for_binary_elementwise_apis,
                              dispatch_for_binary_elementwise_assert_apis,
                              dispatch_for_unary_elementwise_apis, unregister_dispatch_for)
from fn.experimental import extension_type

from fn._public import export as _export
_export(globals())
