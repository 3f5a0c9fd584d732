"""``MirroredVariable`` (TF's ``values.MirroredVariable``): a variable created in the scope of a
strategy with several local replicas holds one copy per replica.

The variable object the user created becomes the container (its class is switched to
``MirroredVariable``, so every reference to it sees the container); each replica reads and
writes its own copy: in replica ``i`` (``strategy.run``) or in ``extended.update``'s update of
replica ``i``, the variable's handle is copy ``i``'s; elsewhere (cross-replica context, outside
the scope) it is the primary copy's. Writes outside a replica go to every copy (so a checkpoint
restore sets them all); in a replica, a variable with aggregation NONE writes its own copy (TF
2.21), one with an aggregation writes the aggregated value to every copy through ``merge_call``.
"""

from __future__ import annotations

import threading
from typing import Any, Tuple

from fn._distribute import context as _context
from fn._distribute.values import Mirrored
from fn._state.variables import ResourceVariable, Variable

_creating = threading.local()


def _replica_index(var: "MirroredVariable") -> int:
    rid = _context.get_update_replica_id()
    if isinstance(rid, int):
        return rid
    ctx = _context.get_replica_context()
    if ctx is not None and ctx.strategy is var._distribute_strategy:
        local = getattr(ctx, "_local_replica_id", 0)
        if isinstance(local, int):
            return local
    return 0


class MirroredVariable(ResourceVariable, Mirrored):
    """A variable with one copy per local replica, kept in sync (TF's ``MirroredVariable``: a
    ``tf.Variable`` and a ``Mirrored`` ``tf.distribute.DistributedValues``)."""

    _mirrored_values: Tuple[Variable, ...]
    _fn_trace_class = True  # a Function argument keeps its class in the trace type

    @property
    def _handle(self) -> Any:
        return self._mirrored_values[_replica_index(self)].__dict__["_handle"]

    @_handle.setter
    def _handle(self, value: Any) -> None:
        self.__dict__["_handle"] = value

    @property
    def values(self) -> Tuple[Variable, ...]:
        """The per-replica copies, in replica order."""
        return self._mirrored_values

    @property
    def _values(self) -> Tuple[Variable, ...]:  # type: ignore[override]
        return self._mirrored_values

    @property
    def _primary(self) -> Variable:
        return self._mirrored_values[0]

    def _on_read(self) -> bool:
        from fn._tf_compat._variable_enums import VariableSynchronization

        return self.synchronization == VariableSynchronization.ON_READ

    def _in_replica(self) -> bool:
        ctx = _context.get_replica_context()
        return ctx is not None and ctx.strategy is self._distribute_strategy

    def read_value(self) -> Any:
        """A replica (or an update) reads its own copy. Outside, a variable synchronized on read
        (a metric's total and count) reads its copies reduced as its aggregation says (TF's
        ``SyncOnReadVariable``); any other reads the first copy."""
        if not self._on_read() or _context.get_update_replica_id() is not None or self._in_replica():
            return super().read_value()
        from fn._ops.array_ops import cast
        from fn._ops.math_ops import add_n
        from fn._tf_compat._variable_enums import VariableAggregation

        copies = [ResourceVariable.read_value(c) for c in self._mirrored_values]
        aggregation = self.aggregation
        if aggregation in (VariableAggregation.NONE, VariableAggregation.ONLY_FIRST_REPLICA):
            return copies[0]
        total = add_n(copies)
        if aggregation == VariableAggregation.MEAN:
            return cast(total / len(copies), self._dtype)
        return total

    def _assign(self, op: str, value: Any, read_value: bool) -> Any:
        if _context.get_update_replica_id() is not None:
            return super()._assign(op, value, read_value)
        in_replica = self._in_replica()
        if in_replica and (self._aggregation is None or self._on_read()):
            return super()._assign(op, value, read_value)  # this replica's copy (TF: ON_READ too)
        if self._on_read():
            return self._on_read_cross_replica_assign(op, value, read_value)
        if in_replica:
            return self._aggregated_assign(_context.get_replica_context(), op, value, read_value)
        for i in range(len(self._mirrored_values)):
            with _context.update_context(i):
                super()._assign(op, value, False)
        return self if read_value else None

    def _on_read_cross_replica_assign(self, op: str, value: Any, read_value: bool) -> Any:
        """TF's ``on_read_assign_cross_replica``: with SUM each copy gets ``value / n`` (so the sum
        read back is the value); assign_add/assign_sub with SUM are refused."""
        from fn._tf_compat._variable_enums import VariableAggregation

        n = len(self._mirrored_values)
        if self.aggregation == VariableAggregation.SUM:
            if op != "AssignVariableOp":
                method = "assign_add" if op == "AssignAddVariableOp" else "assign_sub"
                raise ValueError(
                    f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                    "aggregation is set to `tf.VariableAggregation.SUM`."
                )
            from fn._ops.array_ops import cast

            value = cast(value / n, self._dtype)
        for i in range(n):
            with _context.update_context(i):
                Variable._assign(self, op, value, False)
        return self if read_value else None

    def _aggregated_assign(self, ctx: Any, op: str, value: Any, read_value: bool) -> Any:
        from fn._distribute.mirrored_run import reduce_per_replica
        from fn._distribute.options import ReduceOp
        from fn._distribute.values import DistributedValues
        from fn._tf_compat._variable_enums import VariableAggregation

        aggregation = VariableAggregation(self._aggregation)
        n = len(self._mirrored_values)

        def merge_fn(strategy: Any, v: Any) -> None:
            if aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
                v = v._values[0] if isinstance(v, DistributedValues) else v
            else:
                op_ = ReduceOp.SUM if aggregation == VariableAggregation.SUM else ReduceOp.MEAN
                v = reduce_per_replica(op_, v, n)
            for i in range(n):
                with _context.update_context(i):
                    Variable._assign(self, op, v, False)

        ctx.merge_call(merge_fn, args=(value,))
        return self if read_value else None

    def __repr__(self) -> str:
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._mirrored_values))
        return f"MirroredVariable:{{\n{body}\n}}"


def mirror(variable: Variable, num_replicas: int) -> None:
    """Turns ``variable`` (just created in a multi-replica strategy's scope) into a
    ``MirroredVariable`` whose copies 1.. start from its value (TF names them ``.../replica_i``)."""
    if getattr(_creating, "active", False) or isinstance(variable, MirroredVariable):
        return
    primary = object.__new__(ResourceVariable)
    primary.__dict__.update(variable.__dict__)
    copies: list = [primary]
    base = variable.name.split(":")[0]
    _creating.active = True
    try:
        initial = primary.read_value()
        for i in range(1, num_replicas):
            copies.append(
                Variable(
                    initial,
                    trainable=variable.trainable,
                    name=f"{base}/replica_{i}",
                    aggregation=variable._aggregation,
                    synchronization=variable._synchronization,
                )
            )
    finally:
        _creating.active = False
    from fn._tf_compat._variable_enums import VariableSynchronization

    for c in copies + [variable]:
        c._distribute_strategy = variable._distribute_strategy
        if c.synchronization == VariableSynchronization.AUTO:  # TF: AUTO is ON_WRITE when mirrored
            c._synchronization = VariableSynchronization.ON_WRITE
    variable.__class__ = MirroredVariable
    variable._mirrored_values = tuple(copies)  # type: ignore[attr-defined]
