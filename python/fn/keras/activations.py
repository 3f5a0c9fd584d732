"""``fn.keras.activations`` (``tf.keras.activations``): the common activation functions and
``get`` (a name, a callable or None)."""
from __future__ import annotations

from typing import Any, Callable, Optional, Union


from fn import nn
from fn._ops import math_ops


def linear(x: Any) -> Any:
    """The identity."""
    return x


def relu(x: Any) -> Any:
    """``max(x, 0)``."""
    return nn.relu(x)


def relu6(x: Any) -> Any:
    return nn.relu6(x)


def sigmoid(x: Any) -> Any:
    return math_ops.sigmoid(x)


def tanh(x: Any) -> Any:
    return math_ops.tanh(x)


def softplus(x: Any) -> Any:
    return nn.softplus(x)


def elu(x: Any) -> Any:
    return nn.elu(x)


def softmax(x: Any, axis: int = -1) -> Any:
    return nn.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    return nn.log_softmax(x, axis=axis)


def silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (also ``swish``)."""
    return x * math_ops.sigmoid(x)


swish = silu

_BY_NAME = {f.__name__: f for f in (linear, relu, relu6, sigmoid, tanh, softplus, elu, softmax, log_softmax, silu)}
_BY_NAME["swish"] = silu


def get(identifier: Optional[Union[str, Callable]]) -> Callable:
    """The activation function named by ``identifier`` (None: ``linear``)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier]
        except KeyError:
            raise ValueError(f"Could not interpret activation function identifier: {identifier}") from None
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation: Callable) -> str:
    return getattr(activation, "__name__", repr(activation))


__all__ = sorted(_BY_NAME) + ["get", "serialize"]

from fn._public import export as _export  # noqa: E402
_export(globals())
