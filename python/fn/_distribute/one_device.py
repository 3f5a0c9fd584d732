"""``tf.distribute.OneDeviceStrategy`` and ``tf.distribute.MirroredStrategy`` on this machine's
one CPU (TF's ``one_device_strategy`` / ``mirrored_strategy`` on a CPU-only machine: one replica,
``num_replicas_in_sync == 1``, results of ``run`` are plain tensors)."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

from fn import _core
from fn import nest
from fn._distribute import context as _context
from fn._distribute import mirrored_run
from fn._distribute.options import CommunicationOptions, InputContext, InputReplicationMode, ReduceOp, ValueContext
from fn._distribute.replica import ReplicaContext
from fn._distribute.strategy import Strategy, StrategyExtended
from fn._distribute.values import DistributedValues, PerReplica
from fn._runtime.device import mark_runtime_initialized, num_logical_cpus
from fn._runtime.log import get_logger

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
_CPU = "/job:localhost/replica:0/task:0/device:CPU:%d"


def _canonical_device(device: str) -> str:
    """``"/cpu:0"``, ``"CPU:1"``, ``"/device:CPU:0"`` -> TF's full name of that (virtual) CPU
    (``tf.config.set_logical_device_configuration`` makes CPUs beyond the first); ``"/gpu:N"``
    keeps its name and runs on the CPU, as TF's soft placement does without GPUs."""
    spec = device.strip()
    low = spec.lower()
    parts = [p for p in low.split("/") if p]
    kinds = [p for p in parts if not p.startswith(("job:", "replica:", "task:"))]
    kind = kinds[-1] if kinds else ""
    if kind.startswith("device:"):
        kind = kind[len("device:") :]
    if kind == "cpu":
        return _CPU0
    if kind.startswith("cpu:") and kind[4:].isdigit() and int(kind[4:]) < num_logical_cpus():
        return _CPU % int(kind[4:])
    if kind.startswith("gpu:") and kind[4:].isdigit():  # TF places a missing GPU's work on the CPU
        return "/job:localhost/replica:0/task:0/device:GPU:%d" % int(kind[4:])
    raise ValueError(
        f"Unknown device {device!r}: fn runs on this machine's CPU and the virtual CPUs "
        f"tf.config.set_logical_device_configuration made ({num_logical_cpus()} logical CPU(s))."
    )


class _OneDeviceReplicaContext(ReplicaContext):
    """OneDeviceStrategy's replica context (TF's class name)."""


class _MirroredReplicaContext(ReplicaContext):
    """MirroredStrategy's replica context (TF's class name). With several local replicas its
    ``merge_call`` waits for the other replicas (``mirrored_run``)."""

    _thread: Any = None
    _checks_merge_graph = True

    def merge_call(self, merge_fn: Callable, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        if self._strategy.extended._num_local_replicas == 1:
            return super().merge_call(merge_fn, args, kwargs)
        _context.require_replica_context(self)
        self._check_merge_graph()
        if self._thread is None:  # a context made by hand, not by strategy.run's replica threads
            raise RuntimeError("merge_call across several local replicas needs strategy.run's replica threads.")
        _context.pop_mode()  # the merge runs on the calling thread, in the cross-replica context
        try:
            return self._thread.merge_call(merge_fn, tuple(args), dict(kwargs or {}))
        finally:
            _context.push_mode(self._thread_mode)

    @property
    def devices(self) -> tuple:
        _context.require_replica_context(self)
        return (self._strategy.extended.worker_devices[self._local_replica_id],)


class OneDeviceExtended(StrategyExtended):
    def __init__(self, container_strategy: Strategy, device: str) -> None:
        super().__init__(container_strategy)
        self._device = _canonical_device(device)
        self._default_device = self._device

    @property
    def worker_devices(self) -> tuple:
        return (self._device,)

    def _make_replica_context(self) -> ReplicaContext:
        return _OneDeviceReplicaContext(self._container_strategy(), replica_id_in_sync_group=0)

    @property
    def should_checkpoint(self) -> bool:
        return True

    @property
    def should_save_summary(self) -> bool:
        return True


class OneDeviceStrategy(Strategy):
    """``tf.distribute.OneDeviceStrategy``: everything on one device (here: the CPU)."""

    def __init__(self, device: str) -> None:
        super().__init__(OneDeviceExtended(self, device))


class MirroredExtended(StrategyExtended):
    _mirrors_variables = True  # MirroredVariable / SyncOnReadVariable, as TF's MirroredStrategy
    _mirrored_run = True

    def __init__(self, container_strategy: Strategy, devices: Optional[Sequence[str]], cross_device_ops: Any) -> None:
        super().__init__(container_strategy)
        if devices is None:  # TF's all_local_devices: every GPU, else every logical CPU
            devices = [_CPU % i for i in range(num_logical_cpus())]
        if isinstance(devices, str):
            devices = [devices]
        devices = tuple(_canonical_device(d) for d in devices)
        if not devices:
            raise ValueError("Got an empty `devices` list and unable to recognize any local devices.")
        if len(set(devices)) != len(devices):
            raise ValueError("No duplicates allowed in `devices` argument: %s" % (devices,))
        self._devices = devices
        self._cross_device_ops = cross_device_ops
        mark_runtime_initialized()

    @property
    def worker_devices(self) -> tuple:
        return self._devices

    @property
    def _num_local_replicas(self) -> int:
        return len(self._devices)

    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._devices)

    def _make_replica_context(self) -> ReplicaContext:
        return _MirroredReplicaContext(self._container_strategy(), replica_id_in_sync_group=0)

    def _make_replica_context_for(self, replica_id: int, thread: Any) -> ReplicaContext:
        ctx = _MirroredReplicaContext(self._container_strategy(), replica_id_in_sync_group=replica_id)
        ctx._thread = thread
        return ctx

    def _get_local_replica_id(self, replica_id_in_sync_group: Any) -> Any:
        return replica_id_in_sync_group

    def _get_replica_id_in_sync_group(self, replica_id: Any) -> Any:
        return replica_id

    # -- several local replicas (virtual CPUs); one replica keeps the base class's paths
    def _call_for_each_replica(self, fn: Callable, args: Any, kwargs: dict) -> Any:
        if self._num_local_replicas == 1:
            return super()._call_for_each_replica(fn, args, kwargs)
        # TF traces a Function's replicas into one graph (no warning); a plain function runs eagerly.
        if _core.executing_eagerly() and not isinstance(fn, _core.FunctionBase):
            _warn_eager(type(self._container_strategy()).__name__)
        return mirrored_run.call_for_each_replica(self._container_strategy(), fn, args, kwargs)

    def _on_variable_created(self, variable: Any) -> None:
        if self._num_local_replicas > 1:
            from fn._distribute.mirrored_variable import mirror

            mirror(variable, self._num_local_replicas)

    def _update_non_slot(self, colocate_with: Any, fn: Callable, args: Any, kwargs: dict, should_group: bool) -> Any:
        if self._num_local_replicas == 1:
            return super()._update_non_slot(colocate_with, fn, args, kwargs, should_group)
        results = []
        for i in range(self._num_local_replicas):
            with _context.update_context(i):
                results.append(fn(*mirrored_run.select_replica(i, args), **mirrored_run.select_replica(i, kwargs)))
        grouped = mirrored_run.mirrored(results)
        if should_group:
            return grouped
        return self._local_results(grouped)

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any, options: Any = None) -> Any:
        if self._num_local_replicas > 1 and nest.is_nested(value):
            # TF's MirroredExtended._reduce_to maps a structure (Keras reduces a whole batch)
            return nest.map_structure(
                lambda v: super(MirroredExtended, self).reduce_to(reduce_op, v, destinations, options), value
            )
        return super().reduce_to(reduce_op, value, destinations, options)

    def _batch_reduce_to(
        self, reduce_op: ReduceOp, pairs: List[Tuple[Any, Any]], options: CommunicationOptions
    ) -> List[Any]:
        if self._num_local_replicas == 1:
            return super()._batch_reduce_to(reduce_op, pairs, options)
        # TF's CrossDeviceOps.batch_reduce makes a plain value a one-value PerReplica, whose
        # reduction is the value itself (whatever the op): the same tensor in every replica, e.g.
        # a gradient computed outside `run`, is not summed over replicas.
        return [
            mirrored_run.reduce_per_replica(reduce_op, v, self._num_local_replicas)
            if isinstance(v, DistributedValues)
            else v
            for v, _ in pairs
        ]

    def _batch_gather_to(
        self, value_destination_pairs: Sequence[Tuple[Any, Any]], axis: int, options: Any = None
    ) -> List[Any]:
        if self._num_local_replicas == 1:
            return super()._batch_gather_to(value_destination_pairs, axis, options)
        from fn._ops.array_ops import concat, convert_to_tensor

        _context.require_cross_replica_or_default_context_extended(self)
        out = []
        for v, _ in value_destination_pairs:
            parts = v._values if isinstance(v, DistributedValues) else (v,) * self._num_local_replicas
            out.append(concat([convert_to_tensor(p) for p in parts], axis))
        return out

    def _local_results(self, val: Any) -> tuple:
        if self._num_local_replicas == 1:
            return super()._local_results(val)
        if isinstance(val, DistributedValues):
            return val._values
        values = getattr(val, "_mirrored_values", None)
        if values is not None:
            return values
        return (val,)

    def _experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        if self._num_local_replicas == 1:
            return super()._experimental_distribute_values_from_function(value_fn)
        n = self._num_local_replicas
        return mirrored_run.regroup([value_fn(ValueContext(i, n)) for i in range(n)], PerReplica)

    def _distribute_datasets_from_function(self, dataset_fn: Callable, options: Any) -> Any:
        if self._num_local_replicas == 1:
            return super()._distribute_datasets_from_function(dataset_fn, options)
        from fn._distribute.input import check_options
        from fn._distribute.local_input import LocalReplicasDataset

        check_options(options, from_function=True)
        if getattr(options, "experimental_replication_mode", None) == InputReplicationMode.PER_REPLICA:
            # TF: one pipeline per replica, each built with its own InputContext
            n = self._num_local_replicas
            datasets = [dataset_fn(InputContext(n, i, self._num_replicas_in_sync)) for i in range(n)]
            return LocalReplicasDataset(datasets, self._container_strategy(), n, per_replica=True)
        dataset = dataset_fn(self._input_context())
        return LocalReplicasDataset(dataset, self._container_strategy(), self._num_local_replicas, from_function=True)

    def _experimental_distribute_dataset(self, dataset: Any, options: Any) -> Any:
        if self._num_local_replicas > 1:
            from fn._distribute.input import check_options
            from fn._distribute.local_input import LocalReplicasDataset

            check_options(options, from_function=False)
            return LocalReplicasDataset(dataset, self._container_strategy(), self._num_local_replicas)
        return super()._experimental_distribute_dataset(dataset, options)


_eager_warnings = [0]


def _warn_eager(name: str) -> None:
    """TF's ``log_first_n(WARN, ..., 5)`` for a strategy run eagerly."""
    if _eager_warnings[0] < 5:
        _eager_warnings[0] += 1
        get_logger().warning(
            "Using %s eagerly has significant overhead currently. We will be working on improving this in "
            "the future, but for now please wrap `call_for_each_replica` or `experimental_run` or `run` "
            "inside a tf.function to get the best performance." % name
        )


class MirroredStrategy(Strategy):
    """``tf.distribute.MirroredStrategy``: synchronous replicas on this machine's devices; on a
    CPU-only machine (fn's case), one replica on the CPU."""

    def __init__(self, devices: Optional[Sequence[str]] = None, cross_device_ops: Any = None) -> None:
        super().__init__(MirroredExtended(self, devices, cross_device_ops))
