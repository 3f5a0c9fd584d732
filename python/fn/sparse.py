"""``tf.sparse``: SparseTensor and the ops on it."""
from __future__ import annotations

from fn._sparse.sparse_tensor import SparseTensor  # noqa: F401
from fn._sparse.sparse_ops import (add, concat, expand_dims, eye, from_dense, map_values,  # noqa: F401,A004
                                   reduce_max, reduce_sum, reorder, reshape, retain, slice,
                                   sparse_dense_matmul, to_dense, transpose)
from fn._sparse.sparse_shape_ops import (fill_empty_rows, maximum, minimum, reset_shape, split,  # noqa: F401
                                         to_indicator)

from fn._public import export as _export  # noqa: E402
_export(globals())
