"""``fn.bitwise``: bitwise ops on integer tensors (``tf.bitwise``)."""

from __future__ import annotations

from fn._ops.math_ops import bitwise_and, bitwise_or, bitwise_xor, invert

from fn._tf_compat._array_extra import left_shift, right_shift

from fn._public import export as _export

_export(globals())
