"""``tf.nn.embedding_lookup_sparse`` and ``tf.nn.safe_embedding_lookup_sparse``: per row of a
SparseTensor of ids, the rows of ``params`` at those ids combined (weighted sum, mean or sqrt-n),
as TF's ``embedding_ops`` composes them (gather, segment sums over the row index)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from fn._ops import array_ops as A
from fn._ops import math_ops as M
from fn._ops.linalg_ops import segment_sum
from fn._ops.manip_ops import unique
from fn._sparse.sparse_ops import reshape as sparse_reshape
from fn._sparse.sparse_ops import retain
from fn._sparse.sparse_shape_ops import fill_empty_rows
from fn._sparse.sparse_tensor import SparseTensor
from fn.dtypes import bfloat16, bool_, float16, float32, int32
from fn._ops.nn_ops import embedding_lookup
from fn._tensor.tensor_shape import TensorShape

_COMBINERS = ("mean", "sqrtn", "sum")


def _one_params(params: Any) -> Any:
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("fn's embedding lookups take one params tensor (no partitioning)")
        params = params[0]
    return params if hasattr(params, "handle") else A.convert_to_tensor(params, name="params")


def _as_sparse(x: Any, what: str) -> SparseTensor:
    if isinstance(x, SparseTensor):
        return x
    if hasattr(x, "to_sparse") and hasattr(x, "row_splits"):  # RaggedTensor ids (TF 2 accepts them)
        return x.to_sparse()
    raise TypeError(f"{what} must be SparseTensor, got {type(x)}")


def _combine(emb: Any, segment_ids: Any, weights: Any, combiner: str) -> Any:
    """TF's embedding_lookup_sparse_impl with weights: rows scaled by their weights, summed per
    segment, divided by the weights' sum (mean) or root sum of squares (sqrtn)."""
    original = emb.dtype
    if emb.dtype in (float16, bfloat16):
        emb = M.cast(emb, float32)
    if weights.dtype != emb.dtype:
        weights = M.cast(weights, emb.dtype)
    extra = emb.shape.rank - 1 if emb.shape.rank is not None else None
    if extra is None:
        ones = A.ones(A.expand_dims(A.rank(emb) - 1, 0), int32)
        weights = A.reshape(weights, A.concat([A.shape(weights), ones], 0))
    else:
        weights = A.reshape(weights, A.concat([A.shape(weights), [1] * extra], 0))
    emb = emb * weights
    total = segment_sum(emb, segment_ids)
    if combiner == "mean":
        total = M.divide_no_nan(total, segment_sum(weights, segment_ids))
    elif combiner == "sqrtn":
        total = M.divide_no_nan(total, M.sqrt(segment_sum(M.pow(weights, 2), segment_ids)))
    return M.cast(total, original) if total.dtype != original else total


def embedding_lookup_sparse(
    params: Any,
    sp_ids: Any,
    sp_weights: Any,
    combiner: Optional[str] = None,
    max_norm: Any = None,
    name: Optional[str] = None,
    allow_fast_lookup: bool = False,
) -> Any:
    """``tf.nn.embedding_lookup_sparse``: row ``i`` of the result combines ``params[id]`` over
    the ids of row ``i`` of ``sp_ids`` (weighted by ``sp_weights`` when given). The result has
    as many rows as the largest row index present plus one (TF's segment sum)."""

    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _one_params(params)
    sp_ids = _as_sparse(sp_ids, "sp_ids")
    if sp_weights is not None:
        sp_weights = _as_sparse(sp_weights, "sp_weights")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
    segment_ids = M.cast(sp_ids.indices[:, 0], int32)
    ids, idx = unique(sp_ids.values)
    emb = A.gather(embedding_lookup(params, ids, max_norm=max_norm), idx)
    if sp_weights is None:
        weights = M.ones_like(sp_ids.values, dtype=emb.dtype if emb.dtype not in (float16, bfloat16) else float32)
    else:
        weights = sp_weights.values
    return _combine(emb, segment_ids, weights, combiner)


def safe_embedding_lookup_sparse(
    embedding_weights: Any,
    sparse_ids: Any,
    sparse_weights: Any = None,
    combiner: str = "mean",
    default_id: Any = None,
    max_norm: Any = None,
    name: Optional[str] = None,
    allow_fast_lookup: bool = False,
) -> Any:
    """``tf.nn.safe_embedding_lookup_sparse``: embedding_lookup_sparse over ids of any rank >= 2
    (all but the last dimension are rows), ids < 0 (and weights <= 0 unless summing) dropped,
    and empty rows given ``default_id``'s embedding, or zeros."""
    if embedding_weights is None or (isinstance(embedding_weights, (list, tuple)) and not embedding_weights):
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    params = _one_params(embedding_weights)
    if sparse_weights is not None and not hasattr(params, "handle"):
        params = A.convert_to_tensor(params, sparse_weights.dtype)
    sparse_ids = _as_sparse(sparse_ids, "sparse_ids")
    original_shape = sparse_ids.dense_shape
    rank = sparse_ids.shape.rank
    if rank is None:
        rank_t = A.size(original_shape)
    else:
        rank_t = rank
    rows = M.reduce_prod(original_shape[: rank_t - 1])
    sparse_ids = sparse_reshape(sparse_ids, A.stack([rows, A.gather(original_shape, rank_t - 1)]))
    if sparse_weights is not None:
        sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
    valid = M.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        valid = M.logical_and(valid, M.ones_like(sparse_weights.values, dtype=bool_))
    sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights, valid)
    if combiner != "sum" and sparse_weights is not None:
        sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights, M.greater(sparse_weights.values, 0))
    sparse_ids, is_row_empty = fill_empty_rows(sparse_ids, default_id or 0)
    if sparse_weights is not None:
        sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
    result = embedding_lookup_sparse(params, sparse_ids, sparse_weights, combiner=combiner, max_norm=max_norm)
    if default_id is None:
        empty = A.tile(A.reshape(is_row_empty, [-1, 1]), A.stack([1, A.shape(result)[1]]))
        result = A.where(empty, M.zeros_like(result), result)
    lead = M.cast(original_shape, int32)[: rank_t - 1]
    out = A.reshape(result, A.concat([lead, A.shape(result)[1:]], 0))
    if rank is not None:
        out.set_shape(TensorShape([None] * (rank - 1)).concatenate(result.shape[1:]))
    return out


def _retain(ids: SparseTensor, weights: Any, keep: Any) -> Tuple[SparseTensor, Any]:
    return retain(ids, keep), (None if weights is None else retain(weights, keep))
