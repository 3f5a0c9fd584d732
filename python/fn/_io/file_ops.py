"""``tf.io.read_file`` / ``tf.io.write_file`` (TF's ``ReadFile`` / ``WriteFile`` ops): a whole
local file as one scalar string, eagerly or through a host callback inside a Function or a
tf.data function."""

from __future__ import annotations

import errno
import os
from typing import Any, Optional

import numpy as np

from fn import _core, errors
from fn._ops.array_ops import convert_to_tensor
from fn._ops.script_ops import host_numpy_function as numpy_function
from fn.dtypes import string

_DEVICE = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _scalar_string(x: Any, what: str, op: str) -> Any:
    t = x if _core.is_tensor(x) else convert_to_tensor(x, string)
    if t.shape.rank is not None and t.shape.rank != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{_DEVICE % op}{what} tensor must be scalar, but had shape: {t.shape.as_list()} [Op:{op}]"
        )
    return t


def _os_error(e: OSError, path: str, op: str, eager: bool) -> errors.OpError:
    """TF's Status for a failed file system call: ``<path>; <strerror>``, class by errno."""
    cls = {errno.ENOENT: errors.NotFoundError, errno.EISDIR: errors.FailedPreconditionError}.get(
        e.errno or 0, errors.PermissionDeniedError if e.errno == errno.EACCES else errors.UnknownError
    )
    text = f"{path}; {e.strerror}"
    return cls(None, None, f"{_DEVICE % op}{text} [Op:{op}]" if eager else text)


def _read(path: bytes, eager: bool) -> bytes:
    name = path.decode("utf-8", "replace")
    try:
        if os.path.isdir(name):
            raise IsADirectoryError(errno.EISDIR, "Is a directory")
        with open(name, "rb") as f:
            return f.read()
    except OSError as e:
        raise _os_error(e, name, "ReadFile", eager) from None


def _write(path: bytes, contents: bytes, eager: bool) -> None:
    name = path.decode("utf-8", "replace")
    try:
        parent = os.path.dirname(name)
        if parent:
            os.makedirs(parent, exist_ok=True)  # TF's WriteFile creates the missing directories
        with open(name, "wb") as f:
            f.write(contents)
    except OSError as e:
        raise _os_error(e, name, "WriteFile", eager) from None


def read_file(filename: Any, name: Optional[str] = None) -> Any:
    """``tf.io.read_file``: the bytes of the file ``filename`` (a scalar string) as a scalar string."""
    t = _scalar_string(filename, "Input filename", "ReadFile")
    if _core.executing_eagerly() and hasattr(t, "numpy"):
        return convert_to_tensor(_read(t.numpy(), True), string)
    out = numpy_function(lambda p: np.asarray(_read(p.item(), False), dtype=object), [t], string, name=name)
    out.set_shape([])
    return out


def write_file(filename: Any, contents: Any, name: Optional[str] = None) -> Any:
    """``tf.io.write_file``: writes the scalar string ``contents`` to ``filename`` (creating its
    directories). Returns None eagerly; in a graph, the op runs for its side effect."""
    t = _scalar_string(filename, "Input filename", "WriteFile")
    c = _scalar_string(contents, "Contents", "WriteFile")
    if _core.executing_eagerly() and hasattr(t, "numpy") and hasattr(c, "numpy"):
        _write(t.numpy(), c.numpy(), True)
        return None

    def host(p: np.ndarray, v: np.ndarray) -> None:
        _write(p.item(), v.item(), False)

    return numpy_function(host, [t, c], [], name=name)
