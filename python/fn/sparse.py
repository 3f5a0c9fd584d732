"""``tf.sparse``: SparseTensor and the ops on it."""

from __future__ import annotations

from fn._sparse.sparse_tensor import SparseTensor
from fn._sparse.sparse_ops import (
    add,
    concat,
    expand_dims,
    eye,
    from_dense,
    map_values,
    reduce_max,
    reduce_sum,
    reorder,
    reshape,
    retain,
    slice,
    sparse_dense_matmul,
    to_dense,
    transpose,
)
from fn._sparse.sparse_shape_ops import fill_empty_rows, maximum, minimum, reset_shape, split, to_indicator

from fn._public import export as _export

_export(globals())
