"""``tf.experimental.RowPartition``: how one dimension's rows split the next one's values
(row_splits, plus the row length when it is uniform)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import cast, concat, convert_to_tensor, range as _range
from fn._ops.sort_ops import cumsum
from fn.dtypes import as_dtype, int64
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ops.array_ops import shape


def _vector(x: Any, dtype: Any) -> Any:
    if _core.is_tensor(x):
        return x if dtype is None or x.dtype == dtype else cast(x, dtype)
    return convert_to_tensor(np.asarray(x, (dtype or int64).as_numpy_dtype))


class RowPartition:
    """``tf.experimental.RowPartition``."""

    def __init__(self, row_splits: Any, uniform_row_length: Any = None, internal: bool = False) -> None:
        if not internal:
            raise ValueError(
                "RowPartition constructor is private; please use one of the factory methods "
                "instead (e.g., RowPartition.from_row_lengths())"
            )
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    @classmethod
    def from_row_splits(
        cls, row_splits: Any, validate: bool = True, dtype: Any = None, dtype_hint: Any = None
    ) -> "RowPartition":
        return cls(_vector(row_splits, as_dtype(dtype) if dtype else None), internal=True)

    @classmethod
    def from_row_lengths(
        cls, row_lengths: Any, validate: bool = True, dtype: Any = None, dtype_hint: Any = None
    ) -> "RowPartition":
        lengths = _vector(row_lengths, as_dtype(dtype) if dtype else None)
        zero = convert_to_tensor(np.zeros([1], lengths.dtype.as_numpy_dtype))
        return cls(concat([zero, cumsum(lengths)], 0), internal=True)

    @classmethod
    def from_value_rowids(
        cls, value_rowids: Any, nrows: Any = None, validate: bool = True, dtype: Any = None, dtype_hint: Any = None
    ) -> "RowPartition":
        """Row ``value_rowids[j]`` holds value ``j`` (ids sorted; ``nrows`` past the last id adds
        empty rows): RaggedTensor.from_value_rowids's partition."""

        ids = _vector(value_rowids, as_dtype(dtype) if dtype else None)
        return cls(RaggedTensor.from_value_rowids(ids, ids, nrows, validate=validate).row_splits, internal=True)

    @classmethod
    def from_uniform_row_length(
        cls,
        uniform_row_length: Any,
        nvals: Any,
        nrows: Any = None,
        validate: bool = True,
        dtype: Any = None,
        dtype_hint: Any = None,
    ) -> "RowPartition":
        dt = as_dtype(dtype) if dtype else int64
        length = cast(convert_to_tensor(uniform_row_length), dt)
        if nrows is None:
            nrows = cast(nvals, dt) // length if int(length.numpy() if length._is_eager else 1) else cast(0, dt)
        splits = _range(cast(0, dt), cast(nrows, dt) + 1, dtype=dt) * length
        return cls(splits, length, internal=True)

    @property
    def dtype(self) -> Any:
        return self._row_splits.dtype

    @property
    def static_nrows(self) -> Optional[int]:
        n = self._row_splits.shape[0]
        return None if n is None else n - 1

    @property
    def static_uniform_row_length(self) -> Optional[int]:
        u = self._uniform_row_length
        if u is None or not getattr(u, "_is_eager", False):
            return None
        return int(u.numpy())

    def is_uniform(self) -> bool:
        return self._uniform_row_length is not None

    def row_splits(self) -> Any:
        return self._row_splits

    def row_lengths(self) -> Any:
        return self._row_splits[1:] - self._row_splits[:-1]

    def nrows(self) -> Any:
        n = self.static_nrows
        if n is not None:
            return convert_to_tensor(np.array(n, self.dtype.as_numpy_dtype))

        return cast(shape(self._row_splits, out_type=int64)[0] - 1, self.dtype)

    def nvals(self) -> Any:
        return self._row_splits[-1]

    def uniform_row_length(self) -> Any:
        return self._uniform_row_length

    def with_dtype(self, dtype: Any) -> "RowPartition":
        dtype = as_dtype(dtype)
        u = None if self._uniform_row_length is None else cast(self._uniform_row_length, dtype)
        return RowPartition(cast(self._row_splits, dtype), u, internal=True)

    def __repr__(self) -> str:
        if self._uniform_row_length is not None:
            return (
                f"tf.RowPartition(row_splits={self._row_splits!r}, uniform_row_length="
                f"{self._uniform_row_length!r})".replace("tf.", "fn.", 1)
            )
        return f"fn.RowPartition(row_splits={self._row_splits!r})"
