"""``fn.keras.models`` (``keras.models``)."""
from fn.keras._model import Model, Sequential  # noqa: F401
from fn.keras._saving import load_model  # noqa: F401

__all__ = ["Model", "Sequential", "load_model"]
