"""The datasets that ``Dataset``'s methods build, by name.

``Dataset.map`` returns a ``MapDataset``, a subclass of ``Dataset`` defined in a module that
imports ``dataset_ops``: a method importing it back would close an import circle (TF's
``dataset_ops.py`` does, with function-level imports). Instead each subclass (and each helper
such as ``list_files``) registers itself here when its module is imported, and the methods look
it up by name. ``fn.data`` imports every registering module, and importing any module of ``fn``
runs ``fn/__init__`` (which imports ``fn.data``) first, so every name is present before a method
can be called. This module imports nothing of fn.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, TypeVar

_T = TypeVar("_T", bound=Callable[..., Any])
_BUILDERS: Dict[str, Callable[..., Any]] = {}


def register(builder: _T) -> _T:
    """Class or function decorator: ``builder`` is found by ``lookup(builder.__name__)``."""
    name = builder.__name__
    old = _BUILDERS.get(name, builder)
    if (old.__module__, old.__qualname__) != (builder.__module__, builder.__qualname__):  # a reload may replace
        raise ValueError(f"fn.data: two dataset builders named {name!r}.")
    _BUILDERS[name] = builder
    return builder


def lookup(name: str) -> Callable[..., Any]:
    """The builder registered as ``name``."""
    try:
        return _BUILDERS[name]
    except KeyError:
        raise ImportError(f"fn.data: {name} is not registered; `import fn.data` loads every dataset module.") from None
