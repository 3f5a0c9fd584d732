"""``fn.nn``: neural-network ops with TensorFlow's names (activations here; conv, pooling and
the rest live beside them as they are added)."""
from __future__ import annotations

from fn.math_ops import elu, relu, relu6, sigmoid, softplus, tanh  # noqa: F401
