"""``fn.autograph.experimental`` (``tf.autograph.experimental``): conversion controls."""

import enum as _enum
import functools as _functools

from fn._autograph.converter import DO_NOT_CONVERT_ATTR as _DO_NOT_CONVERT_ATTR

__all__ = ['Feature', 'do_not_convert', 'set_loop_options']


class Feature(_enum.Enum):
    """``tf.autograph.experimental.Feature``: optional conversion features (fn converts the
    same way whichever are requested)."""

    ALL = 'ALL'
    AUTO_CONTROL_DEPS = 'AUTO_CONTROL_DEPS'
    ASSERT_STATEMENTS = 'ASSERT_STATEMENTS'
    BUILTIN_FUNCTIONS = 'BUILTIN_FUNCTIONS'
    EQUALITY_OPERATORS = 'EQUALITY_OPERATORS'
    LISTS = 'LISTS'
    NAME_SCOPES = 'NAME_SCOPES'


def do_not_convert(func=None):
    """``tf.autograph.experimental.do_not_convert``: ``func`` is called as-is, never converted.

    Usable as ``@do_not_convert`` or ``@do_not_convert()``. The marker is an
    attribute on the function; objects that refuse attributes are wrapped.
    """
    if func is None:
        return do_not_convert
    try:
        setattr(func, _DO_NOT_CONVERT_ATTR, True)
        return func
    except (AttributeError, TypeError):

        @_functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        setattr(wrapper, _DO_NOT_CONVERT_ATTR, True)
        return wrapper


_UNSET = object()


def set_loop_options(
    parallel_iterations=_UNSET, swap_memory=_UNSET, maximum_iterations=_UNSET, shape_invariants=_UNSET
):
    """``tf.autograph.experimental.set_loop_options``: options of the staged loop whose body
    holds this call (``shape_invariants`` as ``[(variable, shape), ...]``,
    ``maximum_iterations``, ``parallel_iterations``, ``swap_memory``).

    AutoGraph reads the call while converting the loop; run as a function it does nothing.
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
