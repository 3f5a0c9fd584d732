"""``fn.compat`` (``tf.compat``): text/bytes conversions and the ``v1`` names TF 2 programs and
Keras still use."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from fn.compat import v1


def as_bytes(bytes_or_text: Union[bytes, bytearray, str], encoding: str = "utf-8") -> bytes:
    """``tf.compat.as_bytes``."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Union[bytes, str], encoding: str = "utf-8") -> str:
    """``tf.compat.as_text``."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def path_to_str(path: Any) -> Any:
    """``tf.compat.path_to_str``: a PathLike as its string."""
    return os.fspath(path) if hasattr(path, "__fspath__") else path


def dimension_value(dimension: Any) -> Optional[int]:
    """``tf.compat.dimension_value``: an int dimension or None."""
    return getattr(dimension, "value", dimension)


def forward_compatible(year: int, month: int, day: int) -> bool:
    """``tf.compat.forward_compatible``: fn implements TF 2.21's behaviour for every date."""
    return True


from fn._public import export as _export

_export(globals())
