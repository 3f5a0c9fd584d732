"""``tf.io``'s byte-level ops: decode_raw, encode_base64, decode_base64. They run on the host
(NumPy / base64), eagerly or through a host callback inside a Function."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Callable, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import convert_to_tensor
from fn._ops.op_errors import op_error, type_text
from fn.dtypes import as_dtype, string
from fn.errors import InvalidArgumentError
from fn._ops.script_ops import host_numpy_function as numpy_function

_RAW_TYPES = [
    "half",
    "float",
    "double",
    "int32",
    "uint16",
    "uint8",
    "int16",
    "int8",
    "int64",
    "complex64",
    "complex128",
    "bool",
    "bfloat16",
]
_RAW_OK = {
    "float16",
    "float32",
    "float64",
    "int32",
    "uint16",
    "uint8",
    "int16",
    "int8",
    "int64",
    "complex64",
    "complex128",
    "bool",
}


def _string_input(x: Any, op: str) -> Any:
    t = x if _core.is_tensor(x) else convert_to_tensor(x, string)
    if t.dtype != string:
        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute {op} as input #0(zero-based) was expected to be a "
            f"string tensor but is a {type_text(t.dtype)} tensor [Op:{op}] name: ",
        )
    return t


def _host(func: Callable[[np.ndarray], np.ndarray], x: Any, out_dtype: Any, out_shape: Any) -> Any:
    """Runs ``func`` on the bytes array now (eager) or as a host callback in the graph."""
    if _core.executing_eagerly() and hasattr(x, "numpy"):
        return convert_to_tensor(func(np.asarray(x.numpy(), dtype=object)), out_dtype)
    out = numpy_function(lambda v: func(np.asarray(v, dtype=object)), [x], out_dtype)
    out.set_shape(out_shape) if hasattr(out, "set_shape") else None
    return out


def decode_raw(
    input_bytes: Any,
    out_type: Any,
    little_endian: bool = True,
    fixed_length: Optional[int] = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.io.decode_raw``: each string's bytes reinterpreted as ``out_type`` numbers (a new last
    axis); ``fixed_length`` pads with zeros or truncates every string to that many bytes."""
    op = "DecodeRaw" if fixed_length is None else "DecodePaddedRaw"
    x = _string_input(input_bytes, op)
    dt = as_dtype(out_type)
    if dt.name not in _RAW_OK:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_type' of {type_text(dt)} is not in the list of "
            f"allowed values: {', '.join(_RAW_TYPES)}\n\t; NodeDef: {{{{node {op}}}}} "
            f"[Op:{op}] name: ",
        )
    npd = np.dtype(dt.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    size = npd.itemsize
    if fixed_length is not None and int(fixed_length) % size:
        raise op_error(
            InvalidArgumentError,
            op,
            f"fixed_length ({int(fixed_length)}) must be a multiple of the size of out_type ({size})",
        )

    def run(v: np.ndarray) -> np.ndarray:
        flat = [bytes(b) for b in v.reshape(-1)]
        if fixed_length is not None:
            n = int(fixed_length)
            flat = [b[:n] + bytes(max(0, n - len(b))) for b in flat]
            width = n // size
        else:
            width = len(flat[0]) // size if flat else 0
            if flat and len(flat[0]) % size:
                raise op_error(
                    InvalidArgumentError,
                    op,
                    f"Input to DecodeRaw has length {len(flat[0])} that is not "
                    f"a multiple of {size}, the size of {type_text(dt)}",
                )
            for i, b in enumerate(flat[1:], start=1):
                if len(b) != len(flat[0]):
                    raise op_error(
                        InvalidArgumentError,
                        op,
                        f"DecodeRaw requires input strings to all be the same "
                        f"size, but element {i} has size {len(flat[0])} != "
                        f"{len(b)}",
                    )
        out = np.stack([np.frombuffer(b, dtype=npd, count=width) for b in flat]) if flat else np.zeros((0, width), npd)
        return out.astype(npd.newbyteorder("=")).reshape(v.shape + (width,))

    last = int(fixed_length) // size if fixed_length is not None else None
    return _host(run, x, dt, x.shape.concatenate([last]))


def encode_base64(input: Any, pad: bool = False, name: Optional[str] = None) -> Any:
    """``tf.io.encode_base64``: web-safe base64 (``-`` and ``_``), ``=`` padding only if ``pad``."""
    x = _string_input(input, "EncodeBase64")

    def run(v: np.ndarray) -> np.ndarray:
        out = [base64.urlsafe_b64encode(bytes(b)) for b in v.reshape(-1)]
        if not pad:
            out = [b.rstrip(b"=") for b in out]
        return np.array(out, dtype=object).reshape(v.shape)

    return _host(run, x, string, x.shape)


def decode_base64(input: Any, name: Optional[str] = None) -> Any:
    """``tf.io.decode_base64``: the inverse of ``encode_base64`` (padding optional)."""
    x = _string_input(input, "DecodeBase64")

    def one(b: bytes) -> bytes:
        s = b.rstrip(b"=")
        if any(c not in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in s):
            raise op_error(InvalidArgumentError, "DecodeBase64", "Invalid character found in base64.")
        if len(s) % 4 == 1:
            raise op_error(InvalidArgumentError, "DecodeBase64", "Base64 string length cannot be 1 modulo 4.")
        try:
            return base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
        except (binascii.Error, ValueError):
            raise op_error(InvalidArgumentError, "DecodeBase64", "Invalid character found in base64.") from None

    def run(v: np.ndarray) -> np.ndarray:
        return np.array([one(bytes(b)) for b in v.reshape(-1)], dtype=object).reshape(v.shape)

    return _host(run, x, string, x.shape)
