"""Shim of ``tensorflow.python.ops.math_ops``: the names Keras imports from it."""

from __future__ import annotations

from fn._ops.math_ops import is_nan  # noqa: F401
