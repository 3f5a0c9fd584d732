"""Several replicas in one process (TF's ``mirrored_run`` and ``distribute_utils.regroup``):
``MirroredStrategy`` over virtual CPUs runs ``fn`` once per replica, each in its own thread that
runs while the others wait (so replicas take turns in replica order, as TF's threads do), and
pauses at ``merge_call`` until every replica has reached it; the merge function then runs once,
in the cross-replica context, with the replicas' arguments grouped into ``PerReplica`` values.
"""

from __future__ import annotations

import collections.abc
import contextlib
import threading
from typing import Any, Callable, List, Optional, Sequence

from fn import _core
from fn import nest
from fn._distribute import context as _context
from fn._distribute.shared_trace import Handover, SharedTrace
from fn._distribute.values import DistributedValues, Mirrored, PerReplica
from fn._function import function as _function
from fn._function.name_scope import name_scope
from fn._state.variables import Variable


def select_replica(replica_id: int, structured: Any) -> Any:
    """The value each replica sees: a ``DistributedValues`` (other than a distributed variable)
    becomes its ``replica_id``-th value (TF's ``distribute_utils.select_replica``)."""

    def get(x: Any) -> Any:
        # A distributed variable is handled by the replica itself (its handle is the replica's).
        if isinstance(x, DistributedValues) and not isinstance(x, Variable):
            return x._values[replica_id]
        return x

    return nest.map_structure(get, structured)


def regroup(values: Sequence[Any], wrap_class: type = PerReplica) -> Any:
    """One structure of per-replica values from the replicas' structures (TF's ``regroup``):
    lists, tuples, namedtuples and mappings position by position; the same object in every
    replica stays itself; anything else becomes ``wrap_class(values)``."""
    v0 = values[0]
    if isinstance(v0, list):
        return [regroup(tuple(v[i] for v in values), wrap_class) for i in range(len(v0))]
    if isinstance(v0, tuple):
        items = tuple(regroup(tuple(v[i] for v in values), wrap_class) for i in range(len(v0)))
        return v0._make(items) if hasattr(v0, "_fields") else items  # type: ignore[attr-defined]
    if isinstance(v0, collections.abc.Mapping):
        mapping: Any = type(v0)
        return mapping({k: regroup(tuple(v[k] for v in values), wrap_class) for k in v0.keys()})
    if all(v is v0 for v in values[1:]):
        return v0
    return wrap_class(values)


class _RequestedStop(Exception):
    pass


class _ReplicaThread(threading.Thread):
    """One replica's run of ``fn`` (TF's ``_MirroredReplicaThread``); while a Function is traced,
    it traces into the caller's graph (``trace``)."""

    def __init__(
        self, strategy: Any, replica_id: int, fn: Callable, args: Any, kwargs: dict, trace: Optional[SharedTrace]
    ) -> None:
        super().__init__(name=f"fn-replica-{replica_id}", daemon=True)
        self.trace = trace
        self.handover = Handover()
        self.strategy = strategy
        self.replica_id = replica_id
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.done = False
        self.main_result: Any = None
        self.error: Optional[BaseException] = None
        self.merge_fn: Optional[Callable] = None
        self.merge_args: Any = None
        self.merge_kwargs: Any = None
        self.merge_result: Any = None
        self.stop = False

    def run(self) -> None:
        self.should_run.wait()
        self.should_run.clear()
        if self.stop:
            self.done = True
            self.has_paused.set()
            return
        shared = self.trace.enter() if self.trace is not None else None
        try:
            ctx = self.strategy.extended._make_replica_context_for(self.replica_id, self)
            _context.push_mode(_context.cross_replica_mode(self.strategy))  # the strategy's scope
            try:
                with ctx, self.strategy.extended._replica_device_scope(self.replica_id), self._name_scope():
                    self.main_result = self.fn(*self.args, **self.kwargs)
            finally:
                _context.pop_mode()
        except _RequestedStop:
            pass
        except BaseException as e:  # re-raised on the calling thread
            self.error = e
        finally:
            if self.trace is not None:
                self.trace.exit(shared)
            self.done = True
            self.has_paused.set()

    def _name_scope(self) -> Any:
        """TF traces replica ``i > 0`` under the name scope ``replica_i``."""
        if self.trace is None or self.replica_id == 0:
            return contextlib.nullcontext()
        return name_scope(f"replica_{self.replica_id}")

    def merge_call(self, merge_fn: Callable, args: tuple, kwargs: dict) -> Any:
        """Pauses this replica until the calling thread has run the merge for all replicas."""
        self.merge_fn, self.merge_args, self.merge_kwargs = merge_fn, args, kwargs
        self.handover.pause()
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.stop:
            raise _RequestedStop()
        self.handover.resume()
        result, self.merge_result = self.merge_result, None
        return result


def call_for_each_replica(strategy: Any, fn: Callable, args: Any, kwargs: dict) -> Any:
    """Runs ``fn`` in each local replica, one thread per replica taking turns (eagerly, and while
    a Function is traced: then each thread traces into the graph being built)."""
    n = strategy.extended._num_local_replicas
    if not _core.executing_eagerly():
        return _run_threads(strategy, fn, args, kwargs, n, SharedTrace())
    _core.enter_context_keyed_calls()
    try:
        return _run_threads(strategy, fn, args, kwargs, n, None)
    finally:
        _core.exit_context_keyed_calls()


def _run_threads(strategy: Any, fn: Callable, args: Any, kwargs: dict, n: int, trace: Optional[SharedTrace]) -> Any:
    threads = [
        _ReplicaThread(strategy, i, fn, select_replica(i, args), select_replica(i, kwargs), trace) for i in range(n)
    ]
    mine = Handover()
    for t in threads:
        t.start()
    try:
        while True:
            for t in threads:
                mine.pause()
                t.should_run.set()
                t.has_paused.wait()
                t.has_paused.clear()
                mine.resume()
                if t.error is not None:
                    raise t.error
            if all(t.done for t in threads):
                break
            if any(t.done for t in threads):
                raise RuntimeError("Some replicas made a different number of replica_context().merge_call() calls.")
            merge_fn = threads[0].merge_fn
            assert merge_fn is not None
            merge_args = regroup([t.merge_args for t in threads])
            merge_kwargs = regroup([t.merge_kwargs for t in threads])
            result = _context.run_in_cross_replica(strategy, merge_fn, strategy, *merge_args, **merge_kwargs)
            for t in threads:
                t.merge_result = select_replica(t.replica_id, result)
    finally:
        for t in threads:
            if not t.done:
                t.stop = True
                t.should_run.set()
        for t in threads:
            t.join()
    return regroup([t.main_result for t in threads])


def reduce_per_replica(reduce_op: Any, value: Any, num_replicas: int) -> Any:
    """A ``PerReplica``/``Mirrored`` value reduced over the local replicas (SUM or MEAN); a plain
    value is reduced as TF's ``reduce_non_distributed_value`` does."""
    from fn._distribute.options import ReduceOp
    from fn._ops.math_ops import add_n, truediv
    from fn._ops.array_ops import cast, convert_to_tensor

    if isinstance(value, DistributedValues):
        parts = [convert_to_tensor(v) for v in value._values]
        if isinstance(value, Mirrored) and reduce_op == ReduceOp.MEAN:
            return parts[0]
        total = add_n(parts) if len(parts) > 1 else parts[0]
        if reduce_op == ReduceOp.MEAN:
            if total.dtype.is_integer:
                return total // len(parts)
            return truediv(total, cast(len(parts), total.dtype))
        return total
    if reduce_op == ReduceOp.MEAN or num_replicas == 1:
        return value
    raise ValueError(
        "A non-DistributedValues value %s cannot be reduced with the given reduce op %s." % (value, reduce_op)
    )


def mirrored(values: List[Any]) -> Any:
    """Per-replica results of an update grouped as TF's ``Mirrored`` (one object stays itself)."""
    return regroup(values, Mirrored)


def _replica_trace_context() -> Any:
    """The trace context of a replica of a multi-replica strategy: its Functions capture that
    replica's copies of mirrored variables, so each replica has its own traces (as TF's, whose
    function cache is keyed by the replica's device)."""
    if _context.is_saving_non_distributed():
        return ("saving_non_distributed",)
    ctx = _context.get_replica_context()
    strategy = getattr(ctx, "_strategy", None)
    if strategy is None or getattr(strategy.extended, "_num_local_replicas", 1) == 1:
        return None
    return (id(strategy), ctx._replica_id_in_sync_group)


_function.trace_context_providers.append(_replica_trace_context)
