"""``AggregatingVariable`` (TF's ``ps_values.AggregatingVariable``): a variable created in the
scope of a ``CentralStorageStrategy`` with several compute devices. There is one copy, on the
parameter device; every replica reads it. An update made in a replica context is aggregated
over the replicas first (``merge_call``: SUM/MEAN of the replicas' values, or the first
replica's for ONLY_FIRST_REPLICA) and applied once; a variable with aggregation NONE refuses
it, as TF's. Updates in the cross-replica context apply directly.

As for ``MirroredVariable``, the variable object the user created becomes the wrapper (its
class is switched), so every reference to it sees the aggregating behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fn import _core
from fn._distribute import context as _context
from fn._state.variables import ResourceVariable

# TF's values_util.aggregation_error_msg, formatted for an AggregatingVariable.
_AGGREGATION_ERROR = (
    "You must specify an aggregation method to update a AggregatingVariable in Replica Context. You can do "
    "so by passing an explicit value for argument `aggregation` to tf.Variable(..).e.g. "
    "`tf.Variable(..., aggregation=tf.VariableAggregation.SUM)``tf.VariableAggregation` lists the possible "
    "aggregation methods.This is required because AggregatingVariable should always be kept in sync. When "
    "updating them or assigning to them in a replica context, we automatically try to aggregate the values "
    "before updating the variable. For this aggregation, we need to know the aggregation method. Another "
    "alternative is to not try to update such AggregatingVariable in replica context, but in cross replica "
    "context. You can enter cross replica context by calling "
    "`tf.distribute.get_replica_context().merge_call(merge_fn, ..)`.Inside `merge_fn`, you can then update "
    "the AggregatingVariable using `tf.distribute.StrategyExtended.update()`."
)


def _aggregate(aggregation: Any, value: Any, num_replicas: int) -> Any:
    """The replicas' values combined as ``aggregation`` says (TF's ``apply_aggregation`` with
    ``reduce_non_distributed_value``: a plain value is every replica's, its MEAN is itself and
    its SUM an error, except a NumPy zero, which stays zero; TF reads a Python number's
    ``shape`` there, an AttributeError, kept)."""
    from fn._distribute.mirrored_run import reduce_per_replica
    from fn._distribute.options import ReduceOp
    from fn._distribute.values import DistributedValues
    from fn._tf_compat._variable_enums import VariableAggregation

    if aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
        return value._values[0] if isinstance(value, DistributedValues) else value
    if not isinstance(value, DistributedValues) and not _core.is_tensor(value) and np.all(value == 0):
        return np.zeros(value.shape, dtype=value.dtype)
    reduce_op = ReduceOp.SUM if aggregation == VariableAggregation.SUM else ReduceOp.MEAN
    return reduce_per_replica(reduce_op, value, num_replicas)


class AggregatingVariable(ResourceVariable):
    """A variable on the parameter device whose replica-context updates are aggregated over the
    replicas (TF's ``AggregatingVariable``; a ``tf.Variable``, not a ``DistributedValues``)."""

    _fn_trace_class = True  # a Function argument keeps its class in the trace type
    _parameter_device = "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def device(self) -> str:
        """The parameter device's name (fn keeps the value on the CPU, as TF's soft placement)."""
        return self._parameter_device

    def _assign(self, op: str, value: Any, read_value: bool) -> Any:
        if _context.get_update_replica_id() is not None:
            return super()._assign(op, value, read_value)
        ctx = _context.get_replica_context()
        if ctx is None or ctx.strategy is not self._distribute_strategy:
            return super()._assign(op, value, read_value)  # cross-replica context: one update
        from fn._tf_compat._variable_enums import VariableAggregation

        aggregation = self.aggregation
        if aggregation == VariableAggregation.NONE:
            raise ValueError(_AGGREGATION_ERROR)
        n = self._distribute_strategy.num_replicas_in_sync

        def merge_fn(strategy: Any, v: Any) -> Any:
            with _context.update_context(0):
                return ResourceVariable._assign(self, op, _aggregate(aggregation, v, n), read_value)

        return ctx.merge_call(merge_fn, args=(value,))


def wrap(variable: Any, parameter_device: str) -> None:
    """Turns ``variable``, just created in the scope of a CentralStorageStrategy with several
    compute devices, into its ``AggregatingVariable`` (TF wraps every such variable, whatever its
    synchronization, keeping its aggregation)."""
    if not isinstance(variable, AggregatingVariable):
        variable.__class__ = AggregatingVariable
        variable._parameter_device = parameter_device
