"""``fn.keras``: the small part of Keras that tf.function code and simple training need
(``layers.Dense``/``Conv2D``, ``optimizers.SGD``/``Adam``, ``losses``, ``activations``,
``initializers``), built on ``fn.Module`` and ``fn.Variable``. No ``fit``/``compile``."""
from __future__ import annotations

from fn.keras import activations, initializers, layers, losses, optimizers, utils
from fn.keras.layers import Layer, Sequential

Model = Layer

__all__ = ["activations", "initializers", "layers", "losses", "optimizers", "utils", "Layer", "Model",
           "Sequential"]

from fn._public import export as _export  # noqa: E402
_export(globals())
