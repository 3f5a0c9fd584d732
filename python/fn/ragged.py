"""``tf.ragged``: building and transforming RaggedTensors."""
from fn._ragged._factory import constant, map_flat_values, range  # noqa: A004
from fn._ragged._public_ops import (boolean_mask, row_splits_to_segment_ids, segment_ids_to_row_splits,
                                    stack)

from fn._public import export as _export  # noqa: E402
_export(globals())
