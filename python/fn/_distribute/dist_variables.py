"""Variables created in a strategy's scope (TF's ``values.MirroredVariable`` and
``values.SyncOnReadVariable``).

fn holds one replica per process, so a distributed variable is one ``fn.Variable`` per worker
whose class says how it synchronizes (the creation hook switches the class; reads and writes keep
using the variable's own handle, so Functions capture it as any variable):

- ``MirroredVariable`` (``synchronization`` AUTO/ON_WRITE): the same value on every replica.
  An update in a replica context is aggregated across replicas first as its ``aggregation``
  says (SUM/MEAN all-reduce; ONLY_FIRST_REPLICA takes the first replica's; NONE updates the
  local copy), as TF's ``_on_write_update_replica``.
- ``SyncOnReadVariable`` (ON_READ, e.g. Keras metrics' totals and counts): each replica updates
  its own copy; reading it in a cross-replica context (or outside every scope) reduces the
  copies (SUM/MEAN across workers), so a metric read after ``fit`` is the global one. Assigning
  in a cross-replica context gives each replica ``value / num_replicas`` for SUM (so a saved
  sum restores to the same sum), as TF's ``on_read_assign_cross_replica``.
"""

from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn._distribute import context as _context
from fn._distribute.options import CommunicationOptions, ReduceOp
from fn._distribute.values import DistributedValues
from fn._ops.array_ops import cast
from fn._state.variables import ResourceVariable
from fn._tf_compat._variable_enums import VariableAggregation, VariableSynchronization


def _sync_context(var: "DistributedVariable") -> str:
    """How an access to ``var`` behaves here (TF's ``enter_or_assert_strategy`` + context
    checks): "cross" in its strategy's cross-replica context or outside every strategy (TF
    enters the variable's scope), "update" inside ``extended.update``, "replica" in a replica."""
    strategy = var._distribute_strategy
    mode = _context.current_mode()
    if _context.has_strategy():
        if mode.strategy is not strategy:
            _context.wrong_strategy_scope(strategy, mode)
        if _context.get_update_replica_id() is not None:
            return "update"
        return "cross" if mode.cross_replica_context is not None else "replica"
    return "cross"


class DistributedVariable(ResourceVariable, DistributedValues):
    """A variable of a strategy with one replica per worker (TF's ``DistributedVariable``)."""

    _fn_trace_class = True  # a Function argument keeps its class in the trace type

    @property
    def _values(self) -> tuple:  # type: ignore[override]
        # As TF's: the replica's component, a plain ResourceVariable on the same resource (its
        # reads and writes are local).
        component = self.__dict__.get("_component")
        if component is None:
            component = ResourceVariable.__new__(ResourceVariable)
            component.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_component"})
            self.__dict__["_component"] = component
        return (component,)

    @property
    def distribute_strategy(self) -> Any:
        return self._distribute_strategy

    def _distributed_container(self) -> "DistributedVariable":
        return self

    def _local_read(self) -> Any:
        """This replica's copy, never aggregated."""
        return ResourceVariable.read_value(self)

    def __repr__(self) -> str:
        if _core.executing_eagerly():
            return "%s:{\n  0: %s\n}" % (type(self).__name__, ResourceVariable.__repr__(self))
        return ResourceVariable.__repr__(self)


class MirroredVariable(DistributedVariable):
    """``MirroredVariable``: kept equal on every replica; replica-context updates are aggregated."""

    def _assign(self, op: str, value: Any, read_value: bool) -> Any:
        aggregation = self.aggregation
        if aggregation not in (VariableAggregation.NONE, VariableAggregation.ONLY_FIRST_REPLICA):
            if _sync_context(self) == "replica":
                if isinstance(value, DistributedValues):
                    raise TypeError("Cannot use DistributedValues to update variables in replica context.")
                value = _core.convert_to_tensor(value, self._dtype, None)
                reduce_op = ReduceOp.from_variable_aggregation(aggregation)
                value = self._distribute_strategy.extended._replica_ctx_all_reduce(reduce_op, value, destinations=self)
        return super()._assign(op, value, read_value)


class SyncOnReadVariable(DistributedVariable):
    """``SyncOnReadVariable``: per-replica copies, reduced when read in a cross-replica context."""

    def read_value(self) -> Any:
        if _sync_context(self) != "cross":
            return self._local_read()
        aggregation = self.aggregation
        if aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            return self._local_read()
        reduce_op = ReduceOp.from_variable_aggregation(aggregation)
        extended = self._distribute_strategy.extended
        return extended._collective_all_reduce(reduce_op, [self._local_read()], CommunicationOptions())[0]

    def _assign(self, op: str, value: Any, read_value: bool) -> Any:
        if _sync_context(self) == "cross":
            sum_aggregated = self.aggregation == VariableAggregation.SUM
            if op != "AssignVariableOp" and sum_aggregated:
                method = "assign_add" if op == "AssignAddVariableOp" else "assign_sub"
                raise ValueError(
                    f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                    "aggregation is set to `tf.VariableAggregation.SUM`."
                )
            if op == "AssignVariableOp" and sum_aggregated:
                # Each replica holds a share, so that the sum read back is the value assigned
                # (TF's on_read_assign_cross_replica: `value / n` as given, so a Python list is
                # a TypeError there too).
                n = self._distribute_strategy.num_replicas_in_sync
                value = cast(value / n, self._dtype)
        return super()._assign(op, value, read_value)

    def _scatter(self, op: str, sparse_delta: Any) -> Any:
        raise NotImplementedError(f"Variables with `synchronization=ON_READ` doesn't support `scatter_{op}`")


def make_distributed(variable: Any, strategy: Any) -> None:
    """Turns ``variable``, just created in ``strategy``'s scope, into its MirroredVariable or
    SyncOnReadVariable (TF's ``create_mirrored_variable``: same checks and messages)."""
    name: Optional[str] = getattr(variable, "_given_name", None)
    sync = variable.synchronization
    if sync == VariableSynchronization.NONE:
        raise ValueError(
            "`NONE` variable synchronization mode is not supported with tf.distribute strategy. Please "
            "change the `synchronization` for variable: " + str(name)
        )
    aggregation = variable.aggregation
    if aggregation == VariableAggregation.MEAN and not variable.dtype.is_floating:
        raise ValueError(
            "creating distributed tf.Variable with aggregation=MEAN and a non-floating dtype is not "
            "supported, please use a different aggregation or dtype"
        )
    if sync == VariableSynchronization.AUTO:
        variable._synchronization = VariableSynchronization.ON_WRITE
    on_read = sync == VariableSynchronization.ON_READ
    variable.__class__ = SyncOnReadVariable if on_read else MirroredVariable


def local_tensor(value: Any) -> Any:
    """``value``'s tensor on this replica (a distributed variable's own copy, not its reduction)."""
    if isinstance(value, DistributedVariable):
        return value._local_read()
    return value
