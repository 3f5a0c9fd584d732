"""``tf.sets``: set operations over the last dimension of tensors and SparseTensors."""

from __future__ import annotations

from fn._sparse.sets_ops import (
    difference,
    intersection,
    size,
    union,
)

from fn._public import export as _export

_export(globals())
