"""Eager errors of ops written in Python, worded as TF 2.21's kernels report them."""

from __future__ import annotations

_DEVICE = "_device_/job:localhost/replica:0/task:0/device:CPU:0"

_TF_TYPE = {"float32": "float", "float64": "double", "float16": "half"}


def op_error(cls: type, op: str, message: str, kernel: str = "") -> Exception:
    """A kernel error as TF's eager ops raise it: the wrapping function's prefix, ``[Op:..]`` and
    the trailing ``name: `` of TF's fast path. ``kernel`` names the wrapped function when it
    differs from the op (``SparseConcat_N_2``)."""
    return cls(None, None, f"{{{{function_node __wrapped__{kernel or op}{_DEVICE}}}}} {message} [Op:{op}] name: ")


def type_text(dtype) -> str:
    """A dtype as TF's DataTypeString spells it in kernel errors (``float``, ``double``)."""
    return _TF_TYPE.get(dtype.name, dtype.name)


def attr_not_allowed(op: str, attr: str, value: str, allowed: tuple) -> Exception:
    """A string attr outside its op definition's values: op_def_library's ValueError while
    tracing, the kernel's InvalidArgumentError eagerly (as cpp/graph/op_def.cpp words them)."""
    from fn import _core
    from fn.errors import InvalidArgumentError

    listed = ", ".join(f'"{v}"' for v in allowed)
    if not _core.executing_eagerly():
        return ValueError(f"Attr '{attr}' of '{op}' Op passed string '{value}' not in: {listed}.")
    return InvalidArgumentError(
        None,
        None,
        f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed values: {listed}"
        f"\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]",
    )
