"""fn.autograph: converts Python control flow on tensors into graph control flow.

Contract with ``fn.function`` (the integration point)
------------------------------------------------------
When a Function traces with ``autograph=True`` (the default), it calls
``fn._autograph.converter.convert(python_function)`` once per trace and calls the
result with the bound arguments inside the graph-building context. The
result is a plain Python function (bound method for methods) with the same
signature, defaults, name and globals; it never changes the caller's
arguments. ``convert`` is cheap after the first call (cached per code
object, and per function object for the closure). A function that cannot be
converted comes back unchanged, after one ``warnings.warn`` saying why (with
``AUTOGRAPH_STRICT_CONVERSION=1`` in the environment it raises instead, as in
TensorFlow; generators and loops with an ``else`` clause are never converted).

While the converted function runs, ``if``/``while``/``for`` statements,
``and``/``or``/``not`` and ``a if c else b`` whose condition (or iterable) is a
tensor are staged with ``fn.cond``/``fn.while_loop`` (see ``fn._autograph.backend`` for the
exact backend signatures); on Python values they run as plain Python, so
Python loops unroll. Calls to user functions made inside are converted
recursively at call time; library code (fn, numpy, the standard library, ...)
and functions marked ``fn.autograph.experimental.do_not_convert`` are called
as-is. Errors raised while tracing carry tracebacks with the user's file and
line numbers (the converted code is compiled with the original file name and
line numbers).

Public API (``tf.autograph``'s): ``to_code``, ``to_graph``, ``set_verbosity``, ``trace``,
``experimental.do_not_convert``, ``experimental.set_loop_options``, ``experimental.Feature``.
The implementation lives in the private package ``fn._autograph`` (``converter``,
``transformer``, ``analysis``, ``lowering``, ``operators``, ``backend``, ``errors``).
"""

from fn.autograph import experimental
from fn._autograph import converter as _converter

__all__ = ['experimental', 'set_verbosity', 'to_code', 'to_graph', 'trace']

_verbosity = 0


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_graph``: the converted version of ``entity`` (a function, method or
    callable object); code that cannot be converted comes back unchanged after a warning."""
    return _converter.convert(entity)


def to_code(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_code``: the source of the converted version of ``entity``."""
    return _converter.to_code(entity)


def set_verbosity(level, alsologtostdout=False):
    """``tf.autograph.set_verbosity``; kept for compatibility, fn.autograph logs nothing."""
    global _verbosity
    _verbosity = int(level)


def trace(*args):
    """``tf.autograph.trace``: prints its arguments while the function runs (traces)."""
    print(*args)
