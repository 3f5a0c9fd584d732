"""``fn.autograph.experimental``: conversion controls."""

import functools

from .converter import DO_NOT_CONVERT_ATTR

__all__ = ['do_not_convert']


def do_not_convert(func=None):
    """Marks ``func`` so AutoGraph calls it as-is, never converting it.

    Usable as ``@do_not_convert`` or ``@do_not_convert()``. The marker is an
    attribute on the function; objects that refuse attributes are wrapped.
    """
    if func is None:
        return do_not_convert
    try:
        setattr(func, DO_NOT_CONVERT_ATTR, True)
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        setattr(wrapper, DO_NOT_CONVERT_ATTR, True)
        return wrapper
