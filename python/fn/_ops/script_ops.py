"""``fn.py_function`` (``tf.py_function``): a graph op that runs Python on every execution."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from fn import _core
from fn.dtypes import as_dtype


def py_function(
    func: Optional[Callable] = None, inp: Optional[Sequence[Any]] = None, Tout: Any = None, name: Optional[str] = None
) -> Any:
    """Wraps ``func`` so that it runs eagerly, with eager tensors, each time the op executes.
    ``Tout`` is a dtype or a list of dtypes (None or [] for no outputs). Without ``inp`` (or as
    ``@fn.py_function(Tout=...)``) it returns a function that makes the op when called."""
    if func is None or inp is None:

        def decorate(f: Callable) -> Callable:
            import functools

            @functools.wraps(f)
            def wrapper(*args: Any) -> Any:
                return py_function(f, list(args), Tout, name)

            return wrapper

        return decorate if func is None else decorate(func)
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    touts = [] if Tout is None else ([Tout] if single else list(Tout))
    touts = [as_dtype(t) for t in touts]
    tensors = [x if _core.is_tensor(x) else _core.convert_to_tensor(x) for x in inp]

    def call(*args: Any) -> Any:
        result = func(*args)
        if single:
            return [result]
        return list(result) if isinstance(result, (list, tuple)) else [result]

    attrs = {"callable": call, "Tout": touts} if touts else {"callable": call}
    out = _core.execute("PyCall", tensors, attrs, name or "EagerPyFunc")
    if not touts:
        return None
    return out[0] if single else list(out)


numpy_function = py_function
