"""``fn.bitwise``: bitwise ops on integer tensors (``tf.bitwise``)."""
from __future__ import annotations

from fn._math_ops import bitwise_and, bitwise_or, bitwise_xor, invert  # noqa: F401
