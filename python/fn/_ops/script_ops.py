"""``fn.py_function`` (``tf.py_function``): a graph op that runs Python on every execution."""

from __future__ import annotations

import itertools
import traceback
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from fn import _core, errors, nest
from fn.dtypes import as_dtype, string

# TF names each registered Python function ``pyfunc_<n>`` (its FuncRegistry token); the name
# appears in numpy_function's dtype errors. next() on a count is atomic under the GIL.
# TF's DataTypeString for the dtypes whose TF name differs from the Python one.
_TYPE_STRING = {"float32": "float", "float64": "double", "float16": "half"}
_TOKENS = itertools.count()


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
    return host_py_function(_user_errors(func), inp, Tout, name)


def _user_errors(func: Callable) -> Callable:
    """``func`` failing as TF's py_func kernel fails: any exception becomes an op error."""

    def call(*args: Any) -> Any:
        try:
            return func(*args)
        except Exception as e:
            raise _py_func_error(e) from None

    return call


def host_py_function(func: Callable, inp: Sequence[Any], Tout: Any = None, name: Optional[str] = None) -> Any:
    """``py_function`` for fn's own host code: its op errors pass through as raised."""
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


# TF's py_func kernel: the status a Python exception becomes (anything else is Unknown).
_PY_ERRORS = (
    ((ValueError, TypeError), errors.InvalidArgumentError),
    ((StopIteration,), errors.OutOfRangeError),
    ((MemoryError,), errors.ResourceExhaustedError),
    ((NotImplementedError,), errors.UnimplementedError),
)


def _py_func_error(e: Exception) -> errors.OpError:
    """The error a py_function's exception fails its op with, in TF's words: the exception, then
    its Python traceback as ``traceback.format_exception`` gives it, joined by blank lines."""
    cls = next((c for types, c in _PY_ERRORS if isinstance(e, types)), errors.UnknownError)
    parts = traceback.format_exception(type(e), e, e.__traceback__)
    return cls(None, None, f"{type(e).__name__}: {e}\n" + "\n".join(parts) + "\n")


def _to_numpy(t: Any) -> np.ndarray:
    # TF passes every argument as an ndarray (0-d for scalars; strings as object arrays of bytes).
    return np.asarray(t.numpy(), dtype=object if t.dtype == string else None)


def _type_string(dtype: Any) -> str:
    return _TYPE_STRING.get(dtype.name, dtype.name)


def _from_numpy(value: Any, dtype: Any, index: int, token: str) -> Any:
    """One result of a numpy_function as TF's ``FuncRegistry._convert`` makes it, then checked
    against its ``Tout`` as TF's PyFunc kernel does (no silent casts)."""
    result = np.asarray(value, order="C")
    if result.dtype.kind in "SU":
        if result.dtype.kind == "U":
            result = np.vectorize(lambda x: x.encode("utf8"), otypes=[object])(result)
        result = np.asarray(result, dtype=object)
    got = result.dtype
    if dtype == string:
        ok = got.kind == "O"
    else:
        ok = got == np.dtype(dtype.as_numpy_dtype)
    if not ok:
        got_name = "string" if got.kind == "O" else _type_string(as_dtype(got.type))
        raise errors.InvalidArgumentError(
            None, None, f"{index}-th value returned by {token} is {got_name}, but expects {_type_string(dtype)}"
        )
    return _core.convert_to_tensor(result, dtype=dtype)


def numpy_function(
    func: Optional[Callable] = None,
    inp: Optional[Sequence[Any]] = None,
    Tout: Any = None,
    stateful: bool = True,
    name: Optional[str] = None,
) -> Any:
    """``tf.numpy_function``: like ``py_function`` but ``func`` receives NumPy arrays (0-d for
    scalars, object arrays of bytes for strings) and returns NumPy-convertible values, each of
    which must have its ``Tout`` dtype. ``stateful`` is accepted as TF's (fn never prunes the op)."""
    if func is None or inp is None:

        def decorate(f: Callable) -> Callable:
            import functools

            @functools.wraps(f)
            def wrapper(*args: Any) -> Any:
                return numpy_function(f, list(args), Tout, stateful, name)

            return wrapper

        return decorate if func is None else decorate(func)
    if _core.executing_eagerly():  # TF calls func directly; results converted, not checked
        result = func(*[np.array(_to_numpy(x)) if _core.is_tensor(x) else np.array(x) for x in inp])
        out = [None if v is None else _core.convert_to_tensor(v) for v in nest.flatten(result)]
        return out[0] if len(out) == 1 else out
    return host_numpy_function(_user_errors(func), inp, Tout, name)


def host_numpy_function(func: Callable, inp: Sequence[Any], Tout: Any = None, name: Optional[str] = None) -> Any:
    """``numpy_function`` for fn's own host code: always an op (eagerly too), results checked
    against ``Tout``, op errors passed through as raised."""
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    touts = [] if Tout is None else ([Tout] if single else list(Tout))
    touts = [as_dtype(t) for t in touts]
    token = f"pyfunc_{next(_TOKENS)}"

    def np_func(*args: Any) -> Any:
        result = func(*[_to_numpy(a) for a in args])
        if not touts:
            return result
        values: List[Any] = [result] if single else list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(touts):
            return values  # the op reports the count mismatch
        out = [_from_numpy(v, d, i, token) for i, (v, d) in enumerate(zip(values, touts))]
        return out[0] if single else out

    return host_py_function(np_func, inp, Tout, name)
