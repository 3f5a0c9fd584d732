"""Shim of ``tensorflow.python.framework.tensor_util``: ``is_tf_type`` and ``constant_value``."""

from __future__ import annotations

from typing import Any
from fn._tf_compat._static import get_static_value


def is_tf_type(x: Any) -> bool:
    """True for tensors (eager or symbolic), as TF's ``tensor_util.is_tf_type``."""
    import fn

    return fn.is_tensor(x)


def constant_value(tensor: Any, partial: bool = False) -> Any:
    """The NumPy value of ``tensor`` when known before running (``tf.get_static_value``)."""

    return get_static_value(tensor, partial)
