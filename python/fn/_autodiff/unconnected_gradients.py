"""``tf.UnconnectedGradients``: what a gradient is for a source the target does not depend on."""

from __future__ import annotations

import enum
from typing import Any


class UnconnectedGradients(enum.Enum):
    """What ``GradientTape.gradient`` returns for sources the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def zero_if_unconnected(value: Any) -> bool:
    """True for ``UnconnectedGradients.ZERO`` (or ``"zero"``); TF's error for an unknown value."""
    try:
        return UnconnectedGradients(value) is UnconnectedGradients.ZERO
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None
