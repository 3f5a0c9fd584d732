"""complex64 / complex128 with TensorFlow's names: ``tf.complex``, ``tf.math.real``,
``tf.math.imag``, ``tf.math.conj`` (``tf.abs``, ``+``, ``-``, ``*``, ``/`` work on complex
tensors through their usual ops)."""

from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn._ops.array_ops import convert_to_tensor
from fn._ops.op_call import run_op as _run


def complex(real: Any, imag: Any, name: Optional[str] = None) -> Any:
    """``tf.complex``: ``real + imag * 1j`` from float32 (complex64) or float64 (complex128) parts."""
    real = convert_to_tensor(real)
    imag = convert_to_tensor(imag)
    if real.dtype != imag.dtype or real.dtype.name not in ("float32", "float64"):
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
            f"{imag.dtype.name}. They must be consistent, and one of [fn.float32, fn.float64]"
        )
    return _run("Complex", [real, imag], None, name)


def real(input: Any, name: Optional[str] = None) -> Any:
    """``tf.math.real``: the real part (a real tensor is returned unchanged)."""
    x = convert_to_tensor(input)
    return _run("Real", [x], None, name) if x.dtype.is_complex else x


def imag(input: Any, name: Optional[str] = None) -> Any:
    """``tf.math.imag``: the imaginary part (zeros for a real tensor)."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return _run("Imag", [x], None, name)
    return _core.execute("ZerosLike", [x], None, name)[0]


def conj(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.conj``: the complex conjugate (a real tensor is returned unchanged)."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return _run("Conj", [x], None, name)
    if x.dtype.is_numeric:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}")
