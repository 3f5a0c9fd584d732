"""``tf.get_static_value``: a tensor's value when it is known without running the graph."""

from __future__ import annotations

from typing import Any


from fn._ragged import RaggedTensor
from fn._sparse.sparse_tensor import SparseTensor
from fn._state.variables import Variable
from fn._tf_compat._constant_fold import static_value


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """``tf.get_static_value``: the NumPy value of an eager tensor or of a graph tensor computed
    from constants only; None when it depends on inputs. Non-tensors are returned as arrays."""
    if isinstance(tensor, (Variable, SparseTensor, RaggedTensor)):
        return None  # TF: a variable's value is never static, nor a composite's
    return static_value(tensor)
