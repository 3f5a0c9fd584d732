"""The variables Keras layers own (Keras 3's ``keras.Variable``): ``name`` is the weight's own
name (``kernel``), ``path`` says where it lives (``dense/kernel``), and the repr is Keras's."""
from __future__ import annotations

from typing import Any

from fn import _core
from fn._state.variables import ResourceVariable


class KerasVariable(ResourceVariable):
    """A layer weight. The underlying resource keeps the full path as its name (graphs and
    exports name it ``dense/kernel``), as Keras 3's TF backend names its ``tf.Variable``."""

    def __init__(self, value: Any, *, name: str, path: str, trainable: bool, dtype: Any) -> None:
        super().__init__(value, trainable=trainable, name=path, dtype=dtype)
        self._keras_name = name
        self._keras_path = path

    @property
    def name(self) -> str:
        return self._keras_name

    @property
    def path(self) -> str:
        return self._keras_path

    def __repr__(self) -> str:
        value = ""
        if _core.executing_eagerly():
            value = f", value={self.numpy()}"
        return f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, dtype={self.dtype.name}{value}>"

    __str__ = __repr__
