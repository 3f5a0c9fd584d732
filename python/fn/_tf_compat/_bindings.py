"""What the wiring step of ``fn/__init__.py`` hands the TF-compatibility layer: the fn package
(which ``import tensorflow`` becomes) and Keras' loading hooks from ``fn._keras``, a layer above
this one. Both sit above ``_tf_compat``, so they are given to it rather than imported by it."""

from __future__ import annotations

import types
from typing import Callable, Optional

_package: Optional[types.ModuleType] = None
_load_keras: Optional[Callable[[], types.ModuleType]] = None
_install_keras_glue: Optional[Callable[[], None]] = None


def bind(
    package: types.ModuleType, load_keras: Callable[[], types.ModuleType], install_keras_glue: Callable[[], None]
) -> None:
    """Called once, by ``fn/__init__.py`` after every module is loaded."""
    global _package, _load_keras, _install_keras_glue
    _package, _load_keras, _install_keras_glue = package, load_keras, install_keras_glue


def package() -> types.ModuleType:
    """The fn package."""
    if _package is None:
        raise RuntimeError("fn is not fully imported yet: `import fn` before install_as_tensorflow().")
    return _package


def is_bound() -> bool:
    return _package is not None


def load_keras() -> types.ModuleType:
    """Imports Keras on fn (``fn._keras.load_keras``)."""
    package()
    assert _load_keras is not None
    return _load_keras()


def install_keras_glue() -> None:
    """Tells an imported Keras fn's classes (``fn._keras.install_glue``)."""
    package()
    assert _install_keras_glue is not None
    _install_keras_glue()
