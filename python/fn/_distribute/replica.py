"""``tf.distribute.ReplicaContext``: what code running in one replica (inside ``strategy.run``)
sees: its id, the number of replicas in sync, ``all_reduce``, ``all_gather`` and ``merge_call``
(TF's ``distribute_lib.ReplicaContext``)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from fn import _core
from fn._distribute import context as _context
from fn._distribute.destinations import reduce_destination
from fn._distribute.options import CommunicationOptions, ReduceOp, as_reduce_op
from fn import nest
from fn._autodiff.custom_gradient import custom_gradient
from fn._ops.array_ops import constant, gather, range as range_, reshape, shape
from fn._ops.math_ops import reduce_sum
from fn.dtypes import int32


def _nest() -> Any:
    return nest


_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


# TF's message (mirrored_run._MirroredReplicaThread.merge_call) for a merge_call made in another
# graph than the one strategy.run was traced in.
_MERGE_CALL_GRAPH_ERROR = (
    "`merge_call` called while defining a new graph or a tf.function. This can often happen if the "
    "function `fn` passed to `strategy.run()` contains a nested `@tf.function`, and the nested "
    "`@tf.function` contains a synchronization point, such as aggregating gradients (e.g, "
    "optimizer.apply_gradients), or if the function `fn` uses a control flow statement which contains a "
    "synchronization point in the body. Such behaviors are not yet supported. Instead, please avoid "
    "nested `tf.function`s or control flow statements that may potentially cross a synchronization "
    "boundary, for example, wrap the `fn` passed to `strategy.run` or the entire `strategy.run` inside a "
    "`tf.function` or move the control flow out of `fn`. If you are subclassing a `tf.keras.Model`, please "
    "avoid decorating overridden methods `test_step` and `train_step` in `tf.function`."
)


class ReplicaContext:
    """``tf.distribute.ReplicaContext``: the context of one replica of ``strategy.run``."""

    # The mirrored strategies' contexts (MirroredStrategy, MultiWorkerMirroredStrategy) refuse a
    # merge_call made in another graph than strategy.run's: in a control-flow body or a nested
    # Function of the replica function, or in a Function traced by an eager run (TF's
    # mirrored_run). OneDeviceStrategy and the default strategy allow it.
    _checks_merge_graph = False

    def __init__(self, strategy: Any, replica_id_in_sync_group: Any) -> None:
        self._strategy = strategy
        # The graph strategy.run runs in (0: eagerly; None: not checked).
        self._run_graph: Optional[int] = _core.current_graph_id() if self._checks_merge_graph else None
        self._thread_mode = _context.replica_mode(self)
        if not (
            replica_id_in_sync_group is None
            or _core.is_tensor(replica_id_in_sync_group)
            or isinstance(replica_id_in_sync_group, int)
        ):
            raise ValueError("replica_id_in_sync_group can only be an integer, a Tensor or None.")
        self._replica_id_in_sync_group = replica_id_in_sync_group
        if strategy is not None:
            self._local_replica_id = strategy.extended._get_local_replica_id(replica_id_in_sync_group)

    def __enter__(self) -> None:
        _context.push_mode(self._thread_mode)

    def __exit__(self, *exc: Any) -> None:
        _context.pop_mode()

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's id among all replicas, as an int32 scalar tensor."""
        if _core.is_tensor(self._replica_id_in_sync_group):
            return self._replica_id_in_sync_group
        return constant(self._replica_id_in_sync_group, int32, name="replica_id_in_sync_group")

    @property
    def _replica_id(self) -> Any:
        return self._local_replica_id

    @property
    def strategy(self) -> Any:
        return self._strategy

    @property
    def devices(self) -> tuple:
        _context.require_replica_context(self)
        return ("/job:localhost/replica:0/task:0/device:CPU:0",)

    def merge_call(self, merge_fn: Callable, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once in the cross-replica context, with
        the values of all replicas (each worker has one replica here, so its own values)."""
        _context.require_replica_context(self)
        self._check_merge_graph()
        return _context.run_in_cross_replica(self._strategy, merge_fn, self._strategy, *args, **(kwargs or {}))

    def _check_merge_graph(self) -> None:
        """Raises TF's RuntimeError for a merge_call outside the graph strategy.run was traced in
        (``strategy.run`` itself inside a loop or a nested Function stays allowed, as TF's, which
        Keras' ``steps_per_execution`` relies on)."""
        if self._run_graph is not None and _core.current_graph_id() != self._run_graph:
            raise RuntimeError(_MERGE_CALL_GRAPH_ERROR)

    def all_reduce(self, reduce_op: Any, value: Any, options: Optional[CommunicationOptions] = None) -> Any:
        """Reduces ``value`` (a nested structure of tensors) across replicas; every replica gets
        the result. Its gradient is the all-reduce of the incoming gradients (as TF's)."""
        return self._all_reduce(reduce_op, value, options, check_destinations=True)

    def _all_reduce(
        self, reduce_op: Any, value: Any, options: Optional[CommunicationOptions], check_destinations: bool
    ) -> Any:
        nest = _nest()
        reduce_op = as_reduce_op(reduce_op)
        options = options or CommunicationOptions()
        leaves = nest.flatten(value)
        if not leaves:
            return value
        # Each value's destination is its device (TF's): the mirrored strategies refuse an empty
        # one. The gradient's all-reduce is not checked: fn may build it outside the replica's
        # device scope, where TF's tape builds it inside.
        flat = [v if _core.is_tensor(v) else _core.convert_to_tensor(v, None, None) for v in leaves]
        dests = [reduce_destination(v, t) if check_destinations else _CPU0 for v, t in zip(leaves, flat)]

        def batch_all_reduce(strategy: Any, *value_flat: Any) -> Any:
            return strategy.extended.batch_reduce_to(reduce_op, list(zip(value_flat, dests)), options)

        @custom_gradient
        def grad_wrapper(*xs: Any) -> Any:
            ys = self.merge_call(batch_all_reduce, args=xs)
            return list(ys), lambda *dys: list(self._all_reduce(reduce_op, list(dys), options, False))

        return nest.pack_sequence_as(value, list(grad_wrapper(*flat)))

    def all_gather(self, value: Any, axis: int, options: Optional[CommunicationOptions] = None) -> Any:
        """Concatenates ``value`` of every replica along ``axis`` (replica order); the gradient
        of each replica's input is its slice of the all-reduced (summed) gradient."""
        nest = _nest()
        options = options or CommunicationOptions()
        flat = [v if _core.is_tensor(v) else _core.convert_to_tensor(v, None, None) for v in nest.flatten(value)]

        def batch_all_gather(strategy: Any, *value_flat: Any) -> Any:
            return strategy.extended._batch_gather_to([(v, v) for v in value_flat], axis, options)

        @custom_gradient
        def grad_wrapper(*xs: Any) -> Any:
            ys = self.merge_call(batch_all_gather, args=xs)

            def grad(*dys: Any) -> Any:
                grads = self._all_reduce(ReduceOp.SUM, list(dys), options, False)
                out = []
                for x, g in zip(xs, grads):
                    sizes = self.all_gather(reshape(shape(x)[axis], [1]), axis=0, options=options)
                    begin = reduce_sum(sizes[: self.replica_id_in_sync_group])
                    out.append(gather(g, range_(begin, begin + shape(x)[axis]), axis=axis))
                return out

            return list(ys), grad

        return nest.pack_sequence_as(value, list(grad_wrapper(*flat)))

    def _update(
        self, var: Any, fn: Callable, args: tuple = (), kwargs: Optional[dict] = None, group: bool = True
    ) -> Any:
        return self._strategy.extended._replica_ctx_update(var, fn, args=args, kwargs=kwargs, group=group)


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy (the default strategy's only replica)."""

    @property
    def replica_id_in_sync_group(self) -> int:
        return 0
