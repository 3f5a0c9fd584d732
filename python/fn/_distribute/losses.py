"""``tf.nn.compute_average_loss`` and ``tf.nn.scale_regularization_loss`` (TF's
``nn_impl_distribute``): losses scaled by the global batch / the replicas in sync, so that
summing the replicas' gradients gives the gradient of the global batch's mean loss."""

from __future__ import annotations

from typing import Any, Optional

from fn._distribute import context as _context
from fn._ops.array_ops import cast, convert_to_tensor, expand_dims, shape, squeeze
from fn._ops.check_ops import assert_non_negative
from fn._ops.math_ops import divide_no_nan, multiply, reduce_sum
from fn.dtypes import float32, float64


def _require_replica_context(api: str) -> None:
    if _context.has_strategy() and _context.in_cross_replica_context():
        raise RuntimeError(
            f"You are calling `{api}` in cross replica context, while it was expected to be called in replica context."
        )


def _scale_by_sample_weight(losses: Any, sample_weight: Any) -> Any:
    """TF's ``losses_util.scale_losses_by_sample_weight``: float32 product, the weight's rank
    matched to the losses' by squeezing or expanding its last dimension."""
    losses = cast(losses, float32)
    sample_weight = cast(sample_weight, float32)
    lr, wr = losses.shape.rank, sample_weight.shape.rank
    if lr is not None and wr is not None and wr != 0:
        if wr - lr == 1 and sample_weight.shape[-1] == 1:
            sample_weight = squeeze(sample_weight, [-1])
        elif lr - wr == 1 and losses.shape[-1] == 1:
            losses = squeeze(losses, [-1])
        elif wr - lr == -1:
            sample_weight = expand_dims(sample_weight, -1)
    return multiply(losses, sample_weight)


def _check_global_batch_size(global_batch_size: Any) -> Any:
    g = convert_to_tensor(global_batch_size)
    if g.shape.rank is not None and g.shape.rank != 0:
        raise ValueError(f"global_batch_size must be scalar..  Expected scalar shape, saw shape: {g.shape}.")
    if not g.dtype.is_integer:
        raise TypeError(
            "global_batch_size must be an integer..  Expected \"x\" to be integer type.  "
            f"Found: tensor of dtype {g.dtype!r}"
        )
    assert_non_negative(g, message="global_batch_size must be non-negative.")
    return g


def compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Optional[Any] = None
) -> Any:
    """``tf.nn.compute_average_loss``: ``sum(per_example_loss * sample_weight) /
    global_batch_size``; the global batch defaults to this replica's batch times the replicas
    in sync (and a zero global batch gives 0, as TF's ``div_no_nan``)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.rank == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
            f"Received per_example_loss={_value_text(per_example_loss)} with rank 0"
        )
    if sample_weight is not None:
        per_example_loss = _scale_by_sample_weight(per_example_loss, convert_to_tensor(sample_weight))
    per_example_loss = cast(per_example_loss, input_dtype)
    if global_batch_size is None:
        _require_replica_context("compute_average_loss")
        num_replicas = _context.get_strategy().num_replicas_in_sync
        global_batch_size = shape(per_example_loss)[0] * num_replicas
    global_batch_size = _check_global_batch_size(global_batch_size)
    loss = reduce_sum(per_example_loss)
    if not input_dtype.is_floating:
        # TF's div_no_nan divides integers in float64 (its truediv table).
        loss = cast(loss, float64)
        return divide_no_nan(loss, cast(global_batch_size, float64))
    return divide_no_nan(loss, cast(global_batch_size, input_dtype))


def _value_text(t: Any) -> str:
    try:
        return str(t.numpy())
    except Exception:  # a graph tensor prints as itself
        return str(t)


def scale_regularization_loss(regularization_loss: Any) -> Any:
    """``tf.nn.scale_regularization_loss``: the summed regularization loss divided by the
    replicas in sync (each replica adds its share; the all-reduce sums them back)."""
    _require_replica_context("scale_regularization_loss")
    num_replicas = _context.get_strategy().num_replicas_in_sync
    return reduce_sum(regularization_loss) / num_replicas
