"""``fn.keras``: Keras 3 as its users write it, on ``fn.Module`` and ``fn.Variable``:
``Input``, functional/subclassed ``Model``, ``Sequential``, layers, ``compile``/``fit``/
``evaluate``/``predict`` (the train step traced once into one ``fn.function``), callbacks,
losses, metrics, optimizers, ``save_weights``/``load_weights``."""
from __future__ import annotations

from fn.keras import activations, initializers, layers, losses, optimizers, utils
from fn.keras import callbacks, metrics, models
from fn.keras._functional import Input, KerasTensor
from fn.keras._model import Model, Sequential
from fn.keras.layers import Layer

__all__ = ["activations", "callbacks", "initializers", "layers", "losses", "metrics", "models", "optimizers", "utils",
           "Input", "KerasTensor", "Layer", "Model", "Sequential"]

from fn._public import export as _export  # noqa: E402
_export(globals())
