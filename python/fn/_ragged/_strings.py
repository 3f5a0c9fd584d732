"""String ops whose result is ragged (``tf.strings.split``, ``bytes_split``, ``unicode_split``,
``unicode_decode`` of a tensor of rank >= 1): one host call returns the pieces and the row
splits; outer dimensions of a rank > 1 input become uniform row partitions, as in TF."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fn import _core
from fn._ops.array_ops import reshape, shape as _shape
from fn._ragged._ragged_tensor import RaggedTensor
from fn._tensor.tensor_shape import TensorShape
from fn.dtypes import int64, string


def ragged_pieces(x: Any, pieces: Callable[[bytes], list], name: str, dtype: Any = string) -> Any:
    """A RaggedTensor whose rows are ``pieces(s)`` of each string ``s`` of ``x``."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(ragged_pieces(x.flat_values, pieces, name, dtype))
    rank = x.shape.rank
    flat = x if rank == 1 else reshape(x, [-1])
    np_dtype = object if dtype == string else dtype.as_numpy_dtype

    def call(a: Any) -> list:
        rows = [pieces(bytes(v)) for v in np.asarray(a.numpy(), dtype=object).reshape([-1])]
        values = np.array([p for r in rows for p in r], dtype=np_dtype).reshape([-1])
        splits = np.zeros([len(rows) + 1], np.int64)
        np.cumsum([len(r) for r in rows], out=splits[1:])
        return [values, splits]

    n = flat.shape[0]
    attrs = {
        "callable": call,
        "Tout": [dtype, int64],
        "Tout_shapes": [TensorShape([None]), TensorShape([None if n is None else n + 1])],
    }
    values, splits = _core.execute("PyCall", [flat], attrs, name)
    rt = RaggedTensor.from_row_splits(values, splits, validate=False)
    if rank is not None and rank > 1:
        dims = _shape(x, out_type=int64)
        for axis in range(rank - 1, 0, -1):
            rt = RaggedTensor.from_uniform_row_length(rt, dims[axis], validate=False)
    return rt
