"""``tf.get_static_value``: a tensor's value when it is known without running the graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from fn import _core


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """``tf.get_static_value``: the NumPy value of an eager tensor or of a graph tensor computed
    from constants only; None when it depends on inputs. Non-tensors are returned as arrays."""
    import fn

    if isinstance(tensor, fn.Variable):
        return None  # TF: a variable's value is never static
    if not _core.is_tensor(tensor):
        if isinstance(tensor, (fn.SparseTensor, fn.RaggedTensor)):
            return None
        return np.asarray(tensor) if tensor is not None else None
    if tensor._is_eager:
        return tensor.numpy()
    return _graph_constant(tensor)


def _graph_constant(t: Any) -> Any:
    # A graph tensor is static when the op producing it folds from constants: Shape of a fully
    # defined shape, Const, and elementwise/shape ops over those (evaluated eagerly here).
    from fn._tf_compat import _constant_fold

    return _constant_fold.evaluate(t)
