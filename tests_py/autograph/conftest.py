"""Makes ``fn.autograph`` importable for these tests.

Puts ``python/`` on sys.path. If ``fn/__init__.py`` cannot be imported (the
C++ core is not built), a bare package module stands in for ``fn``. If the
``fn.autograph`` found is not this tree's package (for instance an editable
install whose file map predates ``fn/autograph/__init__.py``), the package is
loaded from ``python/fn/autograph`` directly.
"""

import importlib.util
import os
import sys
import types

_PY = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'python'))
_AG = os.path.join(_PY, 'fn', 'autograph')
if _PY not in sys.path:
    sys.path.insert(0, _PY)

try:
    import fn  # noqa: F401
except Exception:  # the core is not built yet
    for _name in [n for n in sys.modules if n == 'fn' or n.startswith('fn.')]:
        del sys.modules[_name]
    _stub = types.ModuleType('fn')
    _stub.__path__ = [os.path.join(_PY, 'fn')]
    sys.modules['fn'] = _stub


def _load_autograph():
    try:
        import fn.autograph as ag
        if hasattr(ag, 'convert') and os.path.dirname(getattr(ag, '__file__', '') or '') == _AG:
            return
    except Exception:
        pass
    for name in [n for n in sys.modules if n.startswith('fn.autograph')]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        'fn.autograph', os.path.join(_AG, '__init__.py'), submodule_search_locations=[_AG])
    module = importlib.util.module_from_spec(spec)
    sys.modules['fn.autograph'] = module
    spec.loader.exec_module(module)
    sys.modules['fn'].autograph = module


_load_autograph()
