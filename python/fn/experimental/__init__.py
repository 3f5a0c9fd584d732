"""``tf.experimental``: the ragged shape classes (``DynamicRaggedShape``, ``RowPartition``)."""

from __future__ import annotations

from fn._ragged._dynamic_shape import DynamicRaggedShape
from fn._ragged._row_partition import RowPartition

from fn._public import export as _export

_export(globals())
