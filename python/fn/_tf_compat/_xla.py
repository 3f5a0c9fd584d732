"""Shim of ``tensorflow.compiler.tf2xla.python.xla``: ``dynamic_update_slice`` (Keras'
``ops.slice_update``), composed of fn ops with XLA's semantics (start indices clamped so the update
fits inside the operand)."""

from __future__ import annotations

from typing import Any


def dynamic_update_slice(operand: Any, update: Any, start_indices: Any, name: Any = None) -> Any:
    """XLA's DynamicUpdateSlice: ``operand`` with ``update`` written at ``start_indices``."""
    import fn

    operand = fn.convert_to_tensor(operand)
    update = fn.convert_to_tensor(update, dtype=operand.dtype)
    rank = operand.shape.rank
    starts = fn.cast(fn.reshape(fn.convert_to_tensor(start_indices), [-1]), fn.int64)
    op_shape = fn.shape(operand, out_type=fn.int64)
    up_shape = fn.shape(update, out_type=fn.int64)
    starts = fn.clip_by_value(starts, fn.zeros_like(starts), op_shape - up_shape)
    if rank == 0:
        return update
    ranges = [fn.range(up_shape[i], dtype=fn.int64) + starts[i] for i in range(rank)]
    grids = fn.meshgrid(*ranges, indexing="ij")
    indices = fn.stack(grids, axis=-1)
    return fn.tensor_scatter_nd_update(operand, indices, update)
