"""``tf.experimental``: the ragged shape classes (``DynamicRaggedShape``, ``RowPartition``) and
``tf.experimental.numpy``."""
from __future__ import annotations

from fn._ragged._dynamic_shape import DynamicRaggedShape
from fn._ragged._row_partition import RowPartition
from fn.experimental import numpy

from fn._public import export as _export  # noqa: E402
_export(globals())
