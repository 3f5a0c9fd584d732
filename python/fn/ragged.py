"""``tf.ragged``: building and transforming RaggedTensors."""

from fn._ragged._factory import constant, map_flat_values, range
from fn._ragged._public_ops import boolean_mask, row_splits_to_segment_ids, segment_ids_to_row_splits, stack

from fn._public import export as _export

_export(globals())
