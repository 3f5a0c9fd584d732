"""RaggedTensor's methods implemented by the package's higher modules (conversions, indexing,
its spec), set on the class in one place by ``install()`` (called by ``fn._ragged._install``), so
``_ragged_tensor`` imports none of the modules built on it."""

from __future__ import annotations

from typing import Any, Optional

from fn._ragged import _conversion
from fn._ragged._getitem import ragged_getitem
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged._spec import RaggedTensorSpec
from fn.dtypes import as_dtype, int64


def from_tensor(
    cls: type,
    tensor: Any,
    lengths: Any = None,
    padding: Any = None,
    ragged_rank: int = 1,
    name: Optional[str] = None,
    row_splits_dtype: Any = int64,
) -> RaggedTensor:
    """``tf.RaggedTensor.from_tensor``: rows trimmed at ``lengths`` or before trailing ``padding``."""
    return _conversion.from_tensor(tensor, lengths, padding, ragged_rank, as_dtype(row_splits_dtype))


def from_sparse(cls: type, st_input: Any, name: Optional[str] = None, row_splits_dtype: Any = int64) -> RaggedTensor:
    """``tf.RaggedTensor.from_sparse``: a 2-D ragged-right SparseTensor's rows."""
    return _conversion.from_sparse(st_input, as_dtype(row_splits_dtype))


def merge_dims(self: RaggedTensor, outer_axis: int, inner_axis: int) -> Any:
    """``RaggedTensor.merge_dims``: dims ``outer_axis..inner_axis`` become one."""
    return _conversion.merge_dims(self, outer_axis, inner_axis)


def to_tensor(self: RaggedTensor, default_value: Any = None, name: Optional[str] = None, shape: Any = None) -> Any:
    """``RaggedTensor.to_tensor``: a dense tensor, short rows padded with ``default_value``."""
    return _conversion.to_tensor(self, default_value, shape)


def to_sparse(self: RaggedTensor, name: Optional[str] = None) -> Any:
    """``RaggedTensor.to_sparse``: a SparseTensor with one entry per value."""
    return _conversion.to_sparse(self)


def __fn_composite__(self: RaggedTensor) -> tuple:
    """fn.function's composite protocol: keyed by its RaggedTensorSpec, entering the graph as
    flat_values and the nested row_splits."""
    return RaggedTensorSpec.from_value(self), [self.flat_values] + list(self.nested_row_splits)


def _type_spec(self: RaggedTensor) -> Any:
    return RaggedTensorSpec.from_value(self)


def install() -> None:
    methods = {
        "from_tensor": classmethod(from_tensor),
        "from_sparse": classmethod(from_sparse),
        "merge_dims": merge_dims,
        "to_tensor": to_tensor,
        "to_sparse": to_sparse,
        "__getitem__": ragged_getitem,
        "__fn_composite__": __fn_composite__,
        "_type_spec": property(_type_spec),
    }
    for name, method in methods.items():
        setattr(RaggedTensor, name, method)
