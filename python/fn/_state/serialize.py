"""Shared on-disk helpers of fn's own file formats (checkpoints, SavedModels; docs/FORMATS.md):
atomic writes (a temporary name, then ``os.replace``) and tensor values as raw bytes."""

from __future__ import annotations

import os
import struct
import tempfile
from typing import Any, List, Tuple

import numpy as np
from fn.dtypes import as_dtype


def atomic_write(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` so that readers see the old file or the whole new one, never
    a torn one: the bytes go to a temporary file in the same folder, which is then renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def array_to_bytes(value: np.ndarray, dtype_name: str) -> bytes:
    """Little-endian C-order bytes; strings as (uint64 length, bytes) per element."""
    if dtype_name == "string":
        parts: List[bytes] = []
        for s in np.asarray(value, dtype=object).reshape(-1):
            b = s if isinstance(s, bytes) else str(s).encode()
            parts.append(struct.pack("<Q", len(b)))
            parts.append(b)
        return b"".join(parts)
    a = np.ascontiguousarray(value)
    if a.dtype.byteorder == ">":
        a = a.byteswap().view(a.dtype.newbyteorder("<"))
    return a.tobytes()


def array_from_bytes(data: bytes, dtype_name: str, shape: Tuple[int, ...]) -> np.ndarray:
    if dtype_name == "string":
        out, pos = [], 0
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        for _ in range(n):
            (length,) = struct.unpack_from("<Q", data, pos)
            pos += 8
            out.append(bytes(data[pos : pos + length]))
            pos += length
        return np.array(out, dtype=object).reshape(shape)
    np_dtype = np.dtype(as_dtype(dtype_name).as_numpy_dtype).newbyteorder("<")
    return np.frombuffer(data, dtype=np_dtype).reshape(shape).copy()


def to_numpy(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)
