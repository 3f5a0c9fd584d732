"""``tf.io.gfile`` on the local file system (fn has no pluggable file systems): file objects,
directory listing and removal with TF's functions, errors (``NotFoundError``,
``AlreadyExistsError``) and messages. TF's multi-worker checkpointing uses it to remove the
non-chief workers' temporary checkpoint directories."""

from __future__ import annotations

import glob as _glob
import os
import shutil
from typing import Any, Iterator, List, Optional, Tuple

from fn import errors


def _not_found(path: Any) -> Exception:
    return errors.NotFoundError(None, None, f"{os.fspath(path)}; No such file or directory")


class FileStatistics:
    """``tf.io.gfile.stat``'s result: ``length``, ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


class GFile:
    """``tf.io.gfile.GFile``: a file object (text for ``"r"``/``"w"``/``"a"``, bytes with ``"b"``)."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        self._name = os.fspath(name)
        self._mode = mode
        try:
            self._f = open(self._name, mode)
        except FileNotFoundError:
            raise _not_found(self._name) from None

    @property
    def name(self) -> str:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    def read(self, n: int = -1) -> Any:
        return self._f.read(n)

    def readline(self) -> Any:
        return self._f.readline()

    def readlines(self) -> List[Any]:
        return self._f.readlines()

    def write(self, data: Any) -> None:
        self._f.write(data)

    def seek(self, offset: Optional[int] = None, whence: int = 0, position: Optional[int] = None) -> int:
        target = position if offset is None else offset
        return self._f.seek(0 if target is None else target, whence)

    def tell(self) -> int:
        return self._f.tell()

    def size(self) -> int:
        return os.stat(self._name).st_size

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._f)

    def __next__(self) -> Any:
        return next(self._f)

    def __enter__(self) -> "GFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def exists(path: Any) -> bool:
    """``tf.io.gfile.exists``."""
    return os.path.exists(os.fspath(path))


def isdir(path: Any) -> bool:
    """``tf.io.gfile.isdir``."""
    return os.path.isdir(os.fspath(path))


def glob(pattern: Any) -> List[str]:
    """``tf.io.gfile.glob``: the paths matching ``pattern`` (a string or a list of patterns)."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    return [p for pat in patterns for p in _glob.glob(str(os.fsdecode(pat)))]


def listdir(path: Any) -> List[str]:
    """``tf.io.gfile.listdir``: the entries of a directory (no ``.``/``..``)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def makedirs(path: Any) -> None:
    """``tf.io.gfile.makedirs``: the directory and its parents (existing ones are fine)."""
    os.makedirs(os.fspath(path), exist_ok=True)


def mkdir(path: Any) -> None:
    """``tf.io.gfile.mkdir`` (an existing directory is fine, as in TF)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return
    try:
        os.mkdir(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def remove(path: Any) -> None:
    """``tf.io.gfile.remove``: deletes a file."""
    try:
        os.remove(os.fspath(path))
    except FileNotFoundError:
        raise _not_found(path) from None


def rmtree(path: Any) -> None:
    """``tf.io.gfile.rmtree``: deletes a directory and everything in it."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    shutil.rmtree(path)


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """``tf.io.gfile.rename``."""
    src, dst = os.fspath(src), os.fspath(dst)
    if not os.path.exists(src):
        raise _not_found(src)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    os.replace(src, dst)


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """``tf.io.gfile.copy``."""
    src, dst = os.fspath(src), os.fspath(dst)
    if not os.path.exists(src):
        raise _not_found(src)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    shutil.copyfile(src, dst)


def stat(path: Any) -> FileStatistics:
    """``tf.io.gfile.stat``."""
    try:
        st = os.stat(os.fspath(path))
    except FileNotFoundError:
        raise _not_found(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(os.fspath(path)))


def walk(top: Any, topdown: bool = True, onerror: Any = None) -> Iterator[Tuple[str, List[str], List[str]]]:
    """``tf.io.gfile.walk``: ``(dirname, subdirs, files)`` for each directory under ``top``."""
    return os.walk(os.fspath(top), topdown=topdown, onerror=onerror)


def join(path: Any, *paths: Any) -> str:
    """``tf.io.gfile.join``."""
    return os.path.join(os.fspath(path), *[os.fspath(p) for p in paths])
