"""fn.autograph: converts Python control flow on tensors into graph control flow.

Contract with ``fn.function`` (the integration point)
------------------------------------------------------
When a Function traces with ``autograph=True`` (the default), it calls
``fn.autograph.convert(python_function)`` once per trace and calls the
result with the bound arguments inside the graph-building context. The
result is a plain Python function (bound method for methods) with the same
signature, defaults, name and globals; it never changes the caller's
arguments. ``convert`` is cheap after the first call (cached per code
object, and per function object for the closure). A function that cannot be
converted comes back unchanged, after one ``warnings.warn`` saying why.

While the converted function runs, ``if``/``while``/``for`` statements,
``and``/``or``/``not`` and ``a if c else b`` whose condition (or iterable) is a
tensor are staged with ``fn.cond``/``fn.while_loop`` (see ``_backend`` for the
exact backend signatures); on Python values they run as plain Python, so
Python loops unroll. Calls to user functions made inside are converted
recursively at call time; library code (fn, numpy, the standard library, ...)
and functions marked ``fn.autograph.experimental.do_not_convert`` are called
as-is. Errors raised while tracing carry tracebacks with the user's file and
line numbers (the converted code is compiled with the original file name and
line numbers).

Public API: ``convert``, ``to_code``, ``to_graph`` (alias of ``convert``),
``converted_call``, ``experimental.do_not_convert``, ``set_verbosity``,
``trace``.
"""

import sys as _sys

from . import experimental
from . import operators
from .converter import ConversionError, convert, to_code
from .operators import converted_call

__all__ = ['convert', 'to_code', 'to_graph', 'converted_call', 'experimental',
           'do_not_convert', 'set_verbosity', 'trace', 'ConversionError']

do_not_convert = experimental.do_not_convert
to_graph = convert

_verbosity = 0


def set_verbosity(level, alsologtostdout=False):
    """Kept for TensorFlow compatibility; fn.autograph logs nothing."""
    global _verbosity
    _verbosity = int(level)


def trace(*args):
    """Prints its arguments while the function runs (traces)."""
    print(*args)
