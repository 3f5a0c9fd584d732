"""``tf.distribute.Strategy`` and ``tf.distribute.StrategyExtended`` (TF's ``distribute_lib``),
and the default strategy that is in effect outside every ``strategy.scope()``."""

from __future__ import annotations

import contextlib
import copy
import functools
import weakref
from typing import Any, Callable, List, Optional, Sequence, Tuple

from fn import _core
from fn._distribute import context as _context
from fn._distribute.options import CommunicationOptions, InputContext, ReduceOp, ValueContext, as_reduce_op
from fn._distribute.destinations import validate_destinations
from fn._distribute.replica import ReplicaContext, _DefaultReplicaContext
from fn._distribute.values import DistributedValues
from fn._distribute.dist_variables import local_tensor, make_distributed
from fn import nest
from fn._distribute.input import datasets_from_function, distribute_dataset
from fn._autograph import converter as autograph_converter, status as ag_status
from fn._function.function import Function, function
from fn._ops.array_ops import cast, constant, convert_to_tensor, identity, shape, stack
from fn._ops.math_ops import reduce_prod, reduce_sum, truediv
from fn._runtime.device import device as device_scope
from fn._state import variables as _variables
from fn.dtypes import int64


def _nest() -> Any:
    return nest


class Strategy:
    """``tf.distribute.Strategy``: a way to run a computation on several replicas.

    ``scope()`` makes it the current strategy (variables created inside belong to it),
    ``run(fn, args)`` runs ``fn`` in each replica, ``reduce`` combines per-replica values.
    """

    def __init__(self, extended: "StrategyExtended") -> None:
        self._extended = extended
        self._scale_loss_for_estimator = False

    @property
    def extended(self) -> "StrategyExtended":
        return self._extended

    def scope(self) -> Any:
        """A context manager making this strategy current (``with strategy.scope():``)."""
        return self._extended._scope(self)

    @property
    def num_replicas_in_sync(self) -> int:
        return self._extended._num_replicas_in_sync

    @property
    def cluster_resolver(self) -> Any:
        return getattr(self._extended, "_cluster_resolver", None)

    # ------------------------------------------------------------------ input
    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """The dataset as each replica reads it: every global batch split across replicas."""
        return self._extended._experimental_distribute_dataset(dataset, options)

    def distribute_datasets_from_function(self, dataset_fn: Callable, options: Any = None) -> Any:
        """``dataset_fn(InputContext)`` called once per input pipeline (one per worker)."""
        return self._extended._distribute_datasets_from_function(dataset_fn, options)

    def experimental_distribute_datasets_from_function(self, dataset_fn: Callable, options: Any = None) -> Any:
        return self.distribute_datasets_from_function(dataset_fn, options)

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """``value_fn(ValueContext)`` called for each local replica."""
        return self._extended._experimental_distribute_values_from_function(value_fn)

    # ------------------------------------------------------------------ compute
    def run(self, fn: Callable, args: Any = (), kwargs: Optional[dict] = None, options: Any = None) -> Any:
        """Runs ``fn(*args, **kwargs)`` in each replica's context; returns its results (a plain
        value when the worker holds one replica, as TF returns for one local replica)."""
        del options
        if not isinstance(args, (list, tuple)):
            raise ValueError("positional args must be a list or tuple, got {}".format(type(args)))
        if self._extended._mirrored_run and isinstance(fn, Function):
            return self._extended._run_function(fn)(*args, **(kwargs or {}))
        # Inside a Function traced with AutoGraph, the replica function is converted too (TF's
        # autograph.tf_convert): its Python `if`/`for` on tensors become graph control flow.
        if ag_status.control_status() == ag_status.ENABLED:
            fn = autograph_converter.convert(fn)
        with self.scope():
            return self._extended.call_for_each_replica(fn, args=args, kwargs=kwargs)

    def reduce(self, reduce_op: Any, value: Any, axis: Any) -> Any:
        """Reduces per-replica ``value`` across replicas, and along ``axis`` when given (MEAN
        then divides by the total number of elements reduced, as TF)."""
        _context.require_cross_replica_or_default_context_extended(self._extended)
        reduce_op = as_reduce_op(reduce_op)
        if axis is None:
            return self._extended._reduce(reduce_op, value)
        if reduce_op == ReduceOp.SUM:
            sum_fn = self._helper(("sum", axis), lambda v: reduce_sum(v, axis=axis))
            value = self.run(sum_fn, args=(value,))
            return self._extended._reduce(reduce_op, value)
        if reduce_op != ReduceOp.MEAN:
            raise TypeError("Expected `reduce_op` to be a `tf.distribute.ReduceOp`, not: %r" % reduce_op)
        mean_fn = self._helper(("mean", axis), lambda v: _mean_reduce_helper(v, axis))
        numer, denom = self.run(mean_fn, args=(value,))
        numer = self._extended._reduce(ReduceOp.SUM, numer)
        denom = self._extended._reduce(ReduceOp.SUM, denom)
        return truediv(numer, cast(denom, numer.dtype))

    def _helper(self, key: tuple, fn: Callable) -> Callable:
        """As TF: eagerly, the per-replica part of ``reduce`` is a Function cached by axis (so a
        bad axis fails at tracing with a ValueError, and a list axis is unhashable)."""
        if not _core.executing_eagerly():
            return fn
        cache = self.__dict__.setdefault("_reduce_helper_fns", {})
        if key not in cache:
            cache[key] = function(fn)
        return cache[key]

    def gather(self, value: Any, axis: int) -> Any:
        """Concatenates the replicas' ``value`` along ``axis`` (cross-replica context)."""
        _context.require_cross_replica_or_default_context_extended(
            self._extended,
            "tf.distribute.Strategy.gather method requires cross-replica context, use "
            "get_replica_context().all_gather() instead",
        )
        # TF gathers to the current device, else the CPU: a device string
        return self._extended._local_results(self._extended._gather_to(value, "/device:CPU:0", axis))[0]

    def experimental_local_results(self, value: Any) -> tuple:
        """The values of ``value`` held by this worker's replicas, as a tuple."""
        return self._extended._local_results(value)

    def unwrap(self, value: Any) -> tuple:
        return self._extended._local_results(value)

    def __deepcopy__(self, memo: dict) -> "Strategy":
        cls = self.__class__
        result = cls.__new__(cls)
        memo[id(self)] = result
        for k, v in self.__dict__.items():
            setattr(result, k, copy.deepcopy(v, memo))
        result._extended._container_strategy_weakref = weakref.ref(result)
        return result

    def __copy__(self) -> None:
        raise RuntimeError("Must only deepcopy DistributionStrategy.")


def _mean_reduce_helper(v: Any, axis: Any) -> Tuple[Any, Any]:
    """The sum of ``v`` along ``axis`` and how many elements it summed (TF's helper, same errors)."""
    v = convert_to_tensor(v)
    numer = reduce_sum(v, axis=list(axis) if isinstance(axis, tuple) else axis)

    def dimension(a: int) -> Any:
        rank = v.shape.rank
        if rank is not None:
            if a < 0:
                if a + rank < 0:
                    raise ValueError("`axis` = %r out of range for `value` with rank %d" % (a, rank))
                a += rank
            elif a >= rank:
                raise ValueError("`axis` = %r out of range for `value` with rank %d" % (a, rank))
            dim = v.shape[a]
            if dim is not None:
                return identity(constant(int(dim), dtype=int64))
        return identity(shape(v, out_type=int64)[a])

    if isinstance(axis, int):
        denom = dimension(axis)
    elif isinstance(axis, (tuple, list)):
        denom = reduce_prod(stack([dimension(a) for a in axis]))
    else:
        raise TypeError("Expected `axis` to be an integer, tuple or list not: %r" % axis)
    return numer, denom


class _StrategyScope:
    """``strategy.scope()`` of a non-default strategy (TF's ``_CurrentDistributionContext``):
    entering it again inside itself is allowed; entering another strategy's is an error."""

    def __init__(self, strategy: Strategy) -> None:
        self._mode = _context.cross_replica_mode(strategy)
        self._same_scope_again_count = 0

    def __enter__(self) -> Strategy:
        if _context.has_strategy():
            _context.require_cross_replica_or_default_context_extended(self._mode.strategy.extended)
            self._same_scope_again_count += 1
        else:
            _context.push_mode(self._mode)
        return self._mode.strategy

    def __exit__(self, *exc: Any) -> None:
        if self._same_scope_again_count > 0:
            self._same_scope_again_count -= 1
            return
        _context.pop_mode()


class StrategyExtended:
    """``tf.distribute.StrategyExtended``: the lower-level interface of a strategy
    (``update``, ``reduce_to``, ``batch_reduce_to``, ``colocate_vars_with``, ...).

    This base is a strategy of ``num_workers`` processes with one replica each; the
    communication (``_collective_*``) is the identity for one worker and MPI for several.
    """

    def __init__(self, container_strategy: Strategy) -> None:
        self._container_strategy_weakref = weakref.ref(container_strategy)
        self._default_device: Optional[str] = None
        self._require_static_shapes = False

    def _container_strategy(self) -> Strategy:
        strategy = self._container_strategy_weakref()
        assert strategy is not None
        return strategy

    def _scope(self, strategy: Strategy) -> Any:
        return _StrategyScope(strategy)

    # -- the worker group (overridden by the multi-worker strategy)
    @property
    def _num_workers(self) -> int:
        return 1

    @property
    def _worker_id(self) -> int:
        return 0

    def _collective_all_reduce(
        self, reduce_op: ReduceOp, values: List[Any], options: CommunicationOptions
    ) -> List[Any]:
        return list(values)

    def _collective_all_gather(self, values: List[Any], axis: int, options: CommunicationOptions) -> List[Any]:
        return list(values)

    @property
    def _num_replicas_in_sync(self) -> int:
        return self._num_workers

    @property
    def experimental_require_static_shapes(self) -> bool:
        return self._require_static_shapes

    def _in_multi_worker_mode(self) -> bool:
        return self._num_workers > 1

    @property
    def experimental_between_graph(self) -> bool:
        return True

    @property
    def experimental_should_init(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        return self._worker_id == 0

    @property
    def should_save_summary(self) -> bool:
        return self._worker_id == 0

    def _use_merge_call(self) -> bool:
        return True

    def _get_local_replica_id(self, replica_id_in_sync_group: Any) -> Any:
        return 0 if isinstance(replica_id_in_sync_group, int) else replica_id_in_sync_group

    def _get_replica_id_in_sync_group(self, replica_id: Any) -> Any:
        return self._worker_id + replica_id

    def _make_replica_context(self) -> ReplicaContext:
        return ReplicaContext(self._container_strategy(), replica_id_in_sync_group=self._worker_id)

    # TF's mirrored_run (MirroredStrategy, MultiWorkerMirroredStrategy): each replica runs under
    # its device, reductions check their destinations (through TF's cross-device ops), and a
    # Function given to `run` runs as a Function of the whole run (merge_call allowed in it).
    _mirrored_run = False

    def _run_function(self, fn: Function) -> Function:
        """A Function calling ``strategy.run`` with ``fn``'s Python function (TF's mirrored_run
        ``_cfer_fn_cache``), made once per Function."""
        cache = self.__dict__.setdefault("_run_functions", weakref.WeakKeyDictionary())
        wrapped = cache.get(fn)
        if wrapped is None:
            python_function = fn.python_function
            if fn._bound_self is not None:
                python_function = functools.partial(python_function, fn._bound_self())
            strategy = self._container_strategy()

            def run_fn(*args: Any, **kwargs: Any) -> Any:
                return strategy.run(python_function, args=args, kwargs=kwargs)

            wrapped = function(run_fn, autograph=fn._autograph, reduce_retracing=fn._reduce_retracing)
            cache[fn] = wrapped
        return wrapped

    # -- variables
    # Whether variables created in scope become MirroredVariable/SyncOnReadVariable (TF: the
    # mirrored strategies yes; OneDeviceStrategy keeps plain variables).
    _mirrors_variables = False

    def _on_variable_created(self, variable: Any) -> None:
        """Called for each variable created in this strategy's scope (one worker: nothing to do)."""

    def variable_created_in_scope(self, v: Any) -> bool:
        return getattr(v, "_distribute_strategy", None) is self._container_strategy()

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """A scope for variables placed with ``colocate_with_variable`` (one device: no-op)."""
        _context.require_strategy_scope_extended(self)
        return contextlib.nullcontext()

    def value_container(self, value: Any) -> Any:
        return value

    def read_var(self, v: Any) -> Any:
        return identity(v)

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        return min(var_list, key=lambda x: x.name)

    @property
    def worker_devices(self) -> tuple:
        return ("/job:localhost/replica:0/task:0/device:CPU:0",)

    @property
    def parameter_devices(self) -> tuple:
        return self.worker_devices

    # -- replica calls
    def call_for_each_replica(self, fn: Callable, args: Any = (), kwargs: Optional[dict] = None) -> Any:
        _context.require_cross_replica_or_default_context_extended(self)
        with self._container_strategy().scope():
            return self._call_for_each_replica(fn, args, kwargs or {})

    def _call_for_each_replica(self, fn: Callable, args: Any, kwargs: dict) -> Any:
        nest = _nest()
        # Each replica gets its own value of a PerReplica argument (this worker's one replica);
        # a distributed variable stays itself (TF's select_replica): a Function it is passed to
        # traces its replica-context behaviour (aggregated updates).
        args = nest.map_structure(self._replica_value, list(args))
        kwargs = nest.map_structure(self._replica_value, dict(kwargs))
        with self._make_replica_context(), self._replica_device_scope(0):
            return fn(*args, **kwargs)

    def _replica_device_scope(self, replica: int) -> Any:
        """The mirrored strategies run each replica under its device (TF's mirrored_run), so the
        tensors it makes have a device, as their reductions' destinations need."""
        if not self._mirrored_run:
            return contextlib.nullcontext()
        return device_scope(self.worker_devices[replica])

    def update(self, var: Any, fn: Callable, args: Any = (), kwargs: Optional[dict] = None, group: bool = True) -> Any:
        """Runs ``fn(var, *args, **kwargs)`` to update ``var`` (in a replica context: through
        ``merge_call``, so every replica's update sees the merged arguments)."""
        kwargs = kwargs or {}
        replica_context = _context.get_replica_context()
        if replica_context is None or isinstance(replica_context, _DefaultReplicaContext):
            with self._container_strategy().scope():
                return self._update(var, fn, args, kwargs, group)
        return self._replica_ctx_update(var, fn, args=args, kwargs=kwargs, group=group)

    def _update(self, var: Any, fn: Callable, args: Any, kwargs: dict, group: bool) -> Any:
        return self._update_non_slot(var, fn, (var,) + tuple(args), kwargs, group)

    def update_non_slot(
        self, colocate_with: Any, fn: Callable, args: Any = (), kwargs: Optional[dict] = None, group: bool = True
    ) -> Any:
        _context.require_cross_replica_or_default_context_extended(self)
        with self._container_strategy().scope():
            return self._update_non_slot(colocate_with, fn, args, kwargs or {}, group)

    def _update_non_slot(self, colocate_with: Any, fn: Callable, args: Any, kwargs: dict, should_group: bool) -> Any:
        with _context.update_context(0):
            result = fn(*args, **kwargs)
        if should_group:
            return result
        return _nest().map_structure(self._local_results, result)

    def _replica_ctx_update(
        self, var: Any, fn: Callable, args: Any = (), kwargs: Optional[dict] = None, group: bool = True
    ) -> Any:
        replica_context = _context.get_replica_context()
        if not replica_context:
            raise ValueError("`StrategyExtended._replica_ctx_update` must be called in a replica context.")

        def merge_fn(_: Any, *merged_args: Any, **merged_kwargs: Any) -> Any:
            return self.update(var, fn, merged_args, merged_kwargs, group=group)

        return replica_context.merge_call(merge_fn, args=args, kwargs=kwargs)

    # -- reductions
    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        return self._local_results(self.reduce_to(reduce_op, value, "/device:CPU:0"))[0]

    def reduce_to(
        self, reduce_op: Any, value: Any, destinations: Any, options: Optional[CommunicationOptions] = None
    ) -> Any:
        """Reduces ``value`` across replicas (cross-replica context)."""
        _context.require_cross_replica_or_default_context_extended(self)
        reduce_op = as_reduce_op(reduce_op)
        # TF reduces a plain value's MEAN within one worker without looking at the destination.
        if self._mirrored_run and not (
            reduce_op == ReduceOp.MEAN and not isinstance(value, DistributedValues) and self._num_workers == 1
        ):
            validate_destinations(destinations)
        return self._batch_reduce_to(
            as_reduce_op(reduce_op), [(value, destinations)], options or CommunicationOptions()
        )[0]

    def batch_reduce_to(
        self,
        reduce_op: Any,
        value_destination_pairs: Sequence[Tuple[Any, Any]],
        options: Optional[CommunicationOptions] = None,
    ) -> List[Any]:
        """Reduces several values at once (one collective for all of them on several workers)."""
        _context.require_cross_replica_or_default_context_extended(self)
        value_destination_pairs = list(value_destination_pairs)
        if self._mirrored_run:
            for _, d in value_destination_pairs:
                validate_destinations(d)
        return self._batch_reduce_to(
            as_reduce_op(reduce_op), list(value_destination_pairs), options or CommunicationOptions()
        )

    def _batch_reduce_to(
        self, reduce_op: ReduceOp, pairs: List[Tuple[Any, Any]], options: CommunicationOptions
    ) -> List[Any]:
        values = [local_tensor(self._local_value(v)) for v, _ in pairs]
        tensors = [v if _core.is_tensor(v) else _core.convert_to_tensor(v, None, None) for v in values]
        return self._collective_all_reduce(reduce_op, tensors, options)

    def _replica_ctx_all_reduce(
        self, reduce_op: Any, value: Any, options: Optional[CommunicationOptions] = None, destinations: Any = None
    ) -> Any:
        """All-reduces ``value`` from a replica context, to ``destinations`` (default: each value
        itself; an aggregated variable update passes the variable, as TF's ``reduce_to``)."""
        replica_context = _context.get_replica_context()
        assert replica_context, "`StrategyExtended._replica_ctx_all_reduce` must be called in a replica context"
        nest = _nest()

        def merge_fn(_: Any, flat_value: Any) -> Any:
            pairs = [(v, v if destinations is None else destinations) for v in flat_value]
            return self.batch_reduce_to(reduce_op, pairs, options)

        return nest.pack_sequence_as(value, replica_context.merge_call(merge_fn, args=(nest.flatten(value),)))

    def _gather_to(
        self, value: Any, destinations: Any, axis: int, options: Optional[CommunicationOptions] = None
    ) -> Any:
        _context.require_cross_replica_or_default_context_extended(self)
        return self._batch_gather_to([(value, destinations)], axis, options)[0]

    def _batch_gather_to(
        self,
        value_destination_pairs: Sequence[Tuple[Any, Any]],
        axis: int,
        options: Optional[CommunicationOptions] = None,
    ) -> List[Any]:
        _context.require_cross_replica_or_default_context_extended(self)
        values = [convert_to_tensor(local_tensor(self._local_value(v))) for v, _ in value_destination_pairs]
        return self._collective_all_gather(values, axis, options or CommunicationOptions())

    def _replica_value(self, value: Any) -> Any:
        if isinstance(value, _variables.Variable):
            return value
        return self._local_value(value)

    def _local_value(self, value: Any) -> Any:
        if isinstance(value, DistributedValues):
            return value._values[0]
        return value

    def _local_results(self, val: Any) -> tuple:
        if isinstance(val, DistributedValues):
            return val._values
        nest = _nest()
        if nest.is_nested(val):
            return (nest.map_structure(self._local_value, val),)
        return (val,)

    def _group(self, value: Any, name: Optional[str] = None) -> Any:
        return value

    # -- input
    def _input_context(self) -> InputContext:
        return InputContext(
            num_input_pipelines=self._num_workers,
            input_pipeline_id=self._worker_id,
            num_replicas_in_sync=self._num_replicas_in_sync,
        )

    def _experimental_distribute_dataset(self, dataset: Any, options: Any) -> Any:
        return distribute_dataset(self._container_strategy(), dataset, options)

    def _distribute_datasets_from_function(self, dataset_fn: Callable, options: Any) -> Any:
        return datasets_from_function(self._container_strategy(), dataset_fn, self._input_context(), options)

    def _experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        return value_fn(ValueContext(self._worker_id, self._num_replicas_in_sync))


# ---------------------------------------------------------------------- default strategy
class _DefaultDistributionContext:
    """The default strategy's ``scope()``: may not be entered inside another strategy's."""

    __slots__ = ["_strategy", "_nested_count"]

    def __init__(self, strategy: Strategy) -> None:
        self._strategy = strategy
        self._nested_count = 0

    def __enter__(self) -> Strategy:
        if _context.has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        self._nested_count += 1
        return self._strategy

    def __exit__(self, *exc: Any) -> None:
        self._nested_count -= 1


class _DefaultDistributionExtended(StrategyExtended):
    """The default strategy's extended: no communication; datasets are returned unchanged."""

    def _scope(self, strategy: Strategy) -> Any:
        return _DefaultDistributionContext(strategy)

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        _context.require_strategy_scope_extended(self)
        return contextlib.nullcontext()

    def variable_created_in_scope(self, v: Any) -> bool:
        return getattr(v, "_distribute_strategy", None) is None

    def _experimental_distribute_dataset(self, dataset: Any, options: Any) -> Any:
        return dataset

    def _distribute_datasets_from_function(self, dataset_fn: Callable, options: Any) -> Any:
        return dataset_fn(InputContext())

    def _experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        return value_fn(ValueContext())

    def _call_for_each_replica(self, fn: Callable, args: Any, kwargs: dict) -> Any:
        with ReplicaContext(self._container_strategy(), replica_id_in_sync_group=0):
            return fn(*args, **kwargs)

    def _local_results(self, distributed_value: Any) -> tuple:
        return (distributed_value,)

    def _batch_reduce_to(
        self, reduce_op: ReduceOp, pairs: List[Tuple[Any, Any]], options: CommunicationOptions
    ) -> List[Any]:
        return [v for v, _ in pairs]

    def _batch_gather_to(
        self,
        value_destination_pairs: Sequence[Tuple[Any, Any]],
        axis: int,
        options: Optional[CommunicationOptions] = None,
    ) -> List[Any]:
        _context.require_cross_replica_or_default_context_extended(self)
        return [v for v, _ in value_destination_pairs]

    @property
    def worker_devices(self) -> tuple:
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def parameter_devices(self) -> tuple:
        raise RuntimeError("parameter_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def should_checkpoint(self) -> bool:
        return True

    @property
    def should_save_summary(self) -> bool:
        return True

    def _in_multi_worker_mode(self) -> bool:
        return False

    def _get_local_replica_id(self, replica_id_in_sync_group: Any) -> Any:
        return replica_id_in_sync_group

    def _get_replica_id_in_sync_group(self, replica_id: Any) -> Any:
        return replica_id


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect outside every scope (one replica, no communication)."""

    def __init__(self) -> None:
        if not _creating_default[0]:
            raise RuntimeError("Should only create a single instance of _DefaultDistributionStrategy")
        super().__init__(_DefaultDistributionExtended(self))

    def __deepcopy__(self, memo: dict) -> "Strategy":
        raise RuntimeError("Should only create a single instance of _DefaultDistributionStrategy")


_creating_default = [False]


def _make_default_strategy() -> Tuple[Strategy, ReplicaContext]:
    _creating_default[0] = True
    try:
        strategy = _DefaultDistributionStrategy()
    finally:
        _creating_default[0] = False
    return strategy, _DefaultReplicaContext(strategy, replica_id_in_sync_group=0)


# ---------------------------------------------------------------------- Keras' interim helpers
def strategy_supports_no_merge_call() -> bool:
    """``tf.__internal__.distribute.strategy_supports_no_merge_call``."""
    if not _context.has_strategy():
        return False
    return not _context.get_strategy().extended._use_merge_call()


def maybe_merge_call(fn: Callable, strategy: Strategy, *args: Any, **kwargs: Any) -> Any:
    """``tf.__internal__.distribute.interim.maybe_merge_call``: ``fn(strategy, ...)`` directly
    when the strategy needs no merge call, else through the replica context's ``merge_call``."""
    if strategy_supports_no_merge_call():
        return fn(strategy, *args, **kwargs)
    return _context.get_replica_context().merge_call(fn, args=args, kwargs=kwargs)


def _on_variable_created(variable: Any) -> None:
    """Records the strategy whose scope created ``variable`` (TF's ``_distribute_strategy``) and
    lets it synchronize the initial value (the multi-worker strategy broadcasts the chief's)."""
    if not _context.has_strategy():
        return
    strategy = _context.get_strategy()
    variable._distribute_strategy = strategy
    extended = strategy.extended
    extended._on_variable_created(variable)
    # One replica per worker: the variable becomes a MirroredVariable / SyncOnReadVariable (a
    # strategy with several local replicas makes its own per-replica copies instead).
    if extended._mirrors_variables and getattr(extended, "_num_local_replicas", 1) == 1:
        make_distributed(variable, strategy)


_context.set_default_factory(_make_default_strategy)


def install_variable_hook() -> None:
    if _on_variable_created not in _variables._creation_hooks:
        _variables._creation_hooks.append(_on_variable_created)
