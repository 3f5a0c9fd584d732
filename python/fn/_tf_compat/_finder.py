"""The import hook behind ``fn.experimental.install_as_tensorflow()``.

``import tensorflow`` returns the ``fn`` module itself (``sys.modules["tensorflow"] is fn``), and
``import tensorflow.X.Y`` returns the module ``fn.X.Y`` (the same module object, not a copy), so
classes, registries and ``isinstance`` checks are shared between the two names. The private
``tensorflow.python...`` modules that Keras imports are answered by the small shim modules listed
in ``_SHIMS`` (and in docs/DESIGN.md); any other private module is a ModuleNotFoundError naming it.
``fn.keras.X`` and ``tensorflow.keras.X`` alias ``keras._tf_keras.keras.X``, as ``tf.keras`` does
in TensorFlow 2.21.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, Dict, Optional, Sequence

from fn._tf_compat import _bindings

# tensorflow.<private module> -> the fn module that stands in for it (each kept minimal).
_SHIMS: Dict[str, str] = {
    "tensorflow.python.eager.context": "fn._tf_compat._context",
    "tensorflow.python.trackable.data_structures": "fn._tf_compat._data_structures",
    "tensorflow.python.ops.math_ops": "fn._tf_compat._math_ops",
    "tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops": "fn._tf_compat._sparse_csr",
    "tensorflow.python.framework.tensor_util": "fn._tf_compat._tensor_util",
    "tensorflow.python.framework.config": "fn._tf_compat._framework_config",
    "tensorflow.python.framework.type_spec_registry": "fn._tf_compat._type_spec_registry",
    "tensorflow.compiler.tf2xla.python.xla": "fn._tf_compat._xla",
}
# Packages on the way to a shim (``tensorflow.python``, ``tensorflow.python.eager``, ...): empty.
_SHIM_PACKAGES = sorted({name.rsplit(".", i)[0] for name in _SHIMS for i in range(1, name.count("."))} - {"tensorflow"})

_KERAS_TF = "keras._tf_keras.keras"


class _AliasLoader(importlib.abc.Loader):
    """Returns an already imported module under a second name, leaving its own spec alone."""

    def __init__(self, target: types.ModuleType) -> None:
        self._target = target
        self._saved_spec = getattr(target, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self._target

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system wrote the alias' spec onto the module: give it its own back.
        module.__spec__ = self._saved_spec


def _empty_package(name: str) -> types.ModuleType:
    module = types.ModuleType(name, f"fn's stand-in for TensorFlow's private package `{name}`.")
    module.__path__ = []
    return module


def _resolve(fullname: str) -> Optional[types.ModuleType]:
    """The module that ``fullname`` (under ``tensorflow.`` or ``fn.keras.``) names, or None."""
    if fullname in _SHIMS:
        return importlib.import_module(_SHIMS[fullname])
    if fullname in _SHIM_PACKAGES:
        return _empty_package(fullname)
    for prefix in ("tensorflow.keras", "fn.keras"):
        if fullname == prefix or fullname.startswith(prefix + "."):
            return _import_keras_module(_KERAS_TF + fullname[len(prefix) :])
    if fullname.startswith(
        ("tensorflow.python", "tensorflow.core", "tensorflow.compiler", "tensorflow.tsl", "tensorflow.lite")
    ):
        return None  # a private module fn does not shim
    target = "fn" + fullname[len("tensorflow") :]
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name != target:
            raise
    # A public name that is a module attribute rather than a file (``tensorflow.summary``).
    parent_name, _, attr = target.rpartition(".")
    parent = importlib.import_module(parent_name)
    value = getattr(parent, attr, None)
    return value if isinstance(value, types.ModuleType) else None


def _import_keras_module(name: str) -> types.ModuleType:
    _bindings.load_keras()
    return importlib.import_module(name)


class _KerasLoader(importlib.abc.Loader):
    """Keras' own loader, then fn's glue: a program that imports ``keras`` itself (not through
    ``tf.keras``) gets Keras' data adapters told fn's classes, as ``fn.keras`` does."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[types.ModuleType]:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        backend = getattr(getattr(module, "backend", None), "backend", None)
        if callable(backend) and backend() == "tensorflow":
            _bindings.install_keras_glue()

    def __getattr__(self, name: str) -> Any:  # resources, get_data...: Keras' loader answers
        return getattr(self._loader, name)


class TensorflowFinder(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow.*`` (and ``fn.keras.*``) modules among fn's; ``keras`` itself is
    Keras' package, loaded with fn's glue after it."""

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Any = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname == "keras":
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _KerasLoader(spec.loader)
            return spec
        if not (fullname.startswith("tensorflow.") or fullname.startswith("fn.keras.")):
            return None
        module = _resolve(fullname)
        if module is None:
            return None
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_package)


_FINDER = TensorflowFinder()


def install_finder() -> None:
    """Puts the finder first on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
