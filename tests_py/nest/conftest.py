"""Make ``fn.nest`` / ``fn.printing`` importable from the source tree.

Puts ``python/`` on sys.path.  These two modules are pure Python, so when the
full package cannot be imported (the C++ core ``fn._core`` is not built), a bare
``fn`` package object pointing at ``python/fn`` is registered instead, which is
enough to import its pure-Python submodules.
"""
import os
import sys
import types

_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)

try:
    import fn  # noqa: F401  (the real package, when the core is built)
except Exception:  # ImportError without the core; anything else mid-development
    for _name in [n for n in sys.modules if n == "fn" or n.startswith("fn.")]:
        del sys.modules[_name]
    _pkg = types.ModuleType("fn")
    _pkg.__path__ = [os.path.join(_PYTHON_DIR, "fn")]
    sys.modules["fn"] = _pkg
