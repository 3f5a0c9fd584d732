"""``fn.bitwise``: bitwise ops on integer tensors (``tf.bitwise``)."""
from __future__ import annotations

from fn._math_ops import bitwise_and, bitwise_or, bitwise_xor, invert  # noqa: F401

from fn._tf_compat._array_extra import left_shift, right_shift  # noqa: F401,E402

from fn._public import export as _export  # noqa: E402
_export(globals())
