"""Where Keras' TensorFlow backend recognises TensorFlow's classes by their module path
(``"tensorflow.python." in cls.__module__``), it is told fn's classes instead."""
from __future__ import annotations

_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
