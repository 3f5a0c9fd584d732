"""What a public module shows: ``__all__`` and a ``__dir__`` that lists only it.

A public module ends with ``_export(globals())``. Its ``__all__`` (unless it spells one out) is
every name that is not ``_``-prefixed and is not an implementation leftover: ``annotations``,
typing helpers (``Any``, ``Callable``), standard-library or NumPy modules and objects, fn modules
other than the module's own submodules, and names imported from another public fn module (a
re-export must come from a private module, as ``fn.math`` imports from ``fn._ops.math_ops``; the top
level ``fn`` re-exports from anywhere). ``dir(module)`` then lists ``__all__`` only, as
``dir(tf.nn)`` reads; ``tests_py/api/test_namespace.py`` compares it with TensorFlow's names.
"""

from __future__ import annotations

import types as _types
from typing import Any, Dict, Iterable, List


def _is_private_module(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def _exported(ns_name: str, name: str, value: Any) -> bool:
    if name.startswith("_") or name == "annotations":
        return False
    if isinstance(value, _types.ModuleType):
        return value.__name__ == f"{ns_name}.{name}"
    if isinstance(value, (bool, int, float, str, type(None))):
        return True
    origin = (
        getattr(value, "__module__", None)
        if isinstance(value, (type, _types.FunctionType, _types.BuiltinFunctionType))
        else type(value).__module__
    )
    if not isinstance(origin, str) or not (origin == "fn" or origin.startswith("fn.")):
        # pybind11 functions of fn._core report their module as "fn._core"; anything else
        # (typing, collections, numpy) is an import the module uses, not an export.
        return False
    if not isinstance(value, (type, _types.FunctionType, _types.BuiltinFunctionType)):
        return True  # instances of fn classes: dtypes, newaxis-like constants
    return ns_name == "fn" or origin == ns_name or _is_private_module(origin) or origin.startswith(ns_name + ".")


def export(namespace: Dict[str, Any], hide: Iterable[str] = ()) -> List[str]:
    """Sets ``__all__`` (if the module has none) and ``__dir__`` in a public module's namespace.

    ``hide`` names helpers the module imports for its own use (still attributes, not exported).
    """
    ns_name = namespace["__name__"]
    if "__all__" not in namespace:
        hidden = set(hide)
        namespace["__all__"] = sorted(n for n, v in namespace.items() if n not in hidden and _exported(ns_name, n, v))
    names: List[str] = list(namespace["__all__"])
    namespace.pop("annotations", None)  # the __future__ flag; compilation is done with it

    def __dir__() -> List[str]:
        dunders = [n for n in namespace if n.startswith("__") and n.endswith("__")]
        return sorted(set(names) | set(dunders))

    namespace["__dir__"] = __dir__
    return names
