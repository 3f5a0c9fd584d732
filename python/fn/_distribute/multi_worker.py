"""``tf.distribute.MultiWorkerMirroredStrategy`` on MPI: one replica per process (worker).

The cluster comes from ``cluster_resolver`` if given, else from ``TF_CONFIG`` when it is set,
else from MPI (``MPIClusterResolver``). With one worker nothing is communicated (TF's local
mode); with several, the processes must have been launched by MPI (``mpirun -np N``): their MPI
ranks are ordered as TF orders the tasks (chief, then workers by index), variables start from
the chief's values, and reductions are collective ops (``_collective``).
"""

from __future__ import annotations

from typing import Any, List, Optional

from fn._distribute import cluster as _cluster, collective as _collective, mpi_backend as _mpi_backend
from fn._distribute.destinations import validate_destinations
from fn._distribute.options import CommunicationImplementation, CommunicationOptions, ReduceOp
from fn._runtime.log import get_logger
from fn._distribute.replica import ReplicaContext
from fn._distribute.strategy import Strategy, StrategyExtended
from fn._ops.array_ops import transpose
from fn._state.variables import init_scope


class _CollectiveAllReduceReplicaContext(ReplicaContext):
    """MultiWorkerMirroredStrategy's replica context."""

    _checks_merge_graph = True


class CollectiveAllReduceExtended(StrategyExtended):
    """The extended of MultiWorkerMirroredStrategy (TF's ``CollectiveAllReduceExtended``)."""

    _mirrors_variables = True
    _mirrored_run = True

    def __init__(
        self, container_strategy: Strategy, cluster_resolver: Any, communication_options: Optional[CommunicationOptions]
    ) -> None:
        super().__init__(container_strategy)
        if communication_options is None:
            communication_options = CommunicationOptions()
        if not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a tf.distribute.experimental.CommunicationOptions")
        self._communication_options = communication_options
        if communication_options.implementation == CommunicationImplementation.NCCL:
            # TF's _warn_nccl_no_gpu: true of fn too, which runs on CPUs only
            get_logger().warning("Enabled NCCL communication but no GPUs detected/specified.")
        self._cluster_resolver = cluster_resolver or _default_resolver()
        spec = self._cluster_resolver.cluster_spec()
        task_type, task_id = self._cluster_resolver.task_type, self._cluster_resolver.task_id
        self._workers = _cluster.num_workers(spec)
        self._index = _cluster.worker_index(spec, task_type, task_id)
        self._is_chief = _cluster.is_chief(spec, task_type, task_id)
        self._task_type = task_type or "worker"
        self._task_id = task_id or 0
        # TF logs "Collective ops is not configured at program startup. Some performance features
        # may not be enabled." when the runtime started before the strategy (its scoped allocator
        # for CollectiveReduce must be configured first). fn's collectives need no start-up
        # configuration, so the warning would be false here: fn does not log it.
        if self._workers > 1:
            self._connect()

    def _connect(self) -> None:
        MPI = _mpi_backend.import_mpi(f"MultiWorkerMirroredStrategy across {self._workers} workers")
        world = getattr(self._cluster_resolver, "comm", None) or MPI.COMM_WORLD
        if world.Get_size() != self._workers:
            raise ValueError(
                f"The cluster has {self._workers} workers but MPI started {world.Get_size()} process(es): fn "
                f"runs multi-worker training on MPI, so launch exactly one process per worker "
                f"(mpirun -np {self._workers} python ...), each with its own TF_CONFIG task if TF_CONFIG is set."
            )
        # Order the ranks as TF orders the tasks (chief first), so rank == worker index.
        comm = world.Split(0, self._index)
        if comm.Get_rank() != self._index:
            raise ValueError("Two processes claim the same task in TF_CONFIG: each worker needs its own task index.")
        self._comm = comm
        _mpi_backend.start(comm, self._timeout())

    def _batch_gather_to(self, value_destination_pairs: Any, axis: int, options: Any = None) -> List[Any]:
        # TF's CollectiveAllReduce._gather validates each destination (MirroredStrategy's gather
        # does not): all_gather of a tensor made outside strategy.run in a Function raises.
        pairs = list(value_destination_pairs)
        for _, d in pairs:
            validate_destinations(d)
        return super()._batch_gather_to(pairs, axis, options)

    def _timeout(self) -> float:
        t = self._communication_options.timeout_seconds
        return float(t) if t else _mpi_backend.DEFAULT_TIMEOUT_SECONDS

    # -- the worker group
    @property
    def _num_workers(self) -> int:
        return self._workers

    @property
    def _worker_id(self) -> int:
        return self._index

    @property
    def worker_devices(self) -> tuple:
        if self._workers == 1:
            return ("/job:localhost/replica:0/task:0/device:CPU:0",)
        return (f"/job:{self._task_type}/replica:0/task:{self._task_id}/device:CPU:0",)

    @property
    def should_checkpoint(self) -> bool:
        return self._is_chief

    @property
    def should_save_summary(self) -> bool:
        return self._is_chief

    def _in_multi_worker_mode(self) -> bool:
        return self._workers > 1

    def _make_replica_context(self) -> ReplicaContext:
        return _CollectiveAllReduceReplicaContext(self._container_strategy(), replica_id_in_sync_group=self._index)

    def _options(self, options: Optional[CommunicationOptions]) -> CommunicationOptions:
        return self._communication_options.merge(options)

    def _collective_all_reduce(
        self, reduce_op: ReduceOp, values: List[Any], options: CommunicationOptions
    ) -> List[Any]:
        if self._workers == 1:
            return list(values)
        opts = self._options(options)
        timeout = float(opts.timeout_seconds) if opts.timeout_seconds else self._timeout()
        return _collective.packed_all_reduce(values, reduce_op == ReduceOp.MEAN, timeout, opts.bytes_per_pack)

    def _collective_all_gather(self, values: List[Any], axis: int, options: CommunicationOptions) -> List[Any]:
        if self._workers == 1:
            return list(values)
        opts = self._options(options)
        timeout = float(opts.timeout_seconds) if opts.timeout_seconds else self._timeout()
        out = []
        for v in values:
            rank = v.shape.rank
            if rank is None or rank == 0:
                raise ValueError(f"tf.distribute's gather needs tensors of known rank >= 1, got shape {v.shape}")
            a = axis + rank if axis < 0 else axis
            if a == 0:
                out.append(_collective.all_gather(v, timeout))
                continue
            perm = [a] + [i for i in range(rank) if i != a]
            inverse = [perm.index(i) for i in range(rank)]
            out.append(transpose(_collective.all_gather(transpose(v, perm), timeout), inverse))
        return out

    def _on_variable_created(self, variable: Any) -> None:
        """Every worker starts from the chief's initial value (TF broadcasts it the same way)."""
        if self._workers == 1:
            return
        with init_scope():
            variable.assign(_collective.broadcast(variable.read_value(), 0, self._timeout()), read_value=False)


def _default_resolver() -> Any:
    """TF_CONFIG when it names a cluster; else MPI's when an MPI launcher started several
    processes; else TF's default (TF_CONFIG's empty cluster: one local worker)."""
    import os

    resolver = _cluster.TFConfigClusterResolver()
    if os.environ.get("TF_CONFIG") and resolver.cluster_spec():
        return resolver
    if _mpi_backend.launched_world_size() > 1:
        return _cluster.MPIClusterResolver()
    return resolver


class MultiWorkerMirroredStrategy(Strategy):
    """``tf.distribute.MultiWorkerMirroredStrategy``: synchronous training on several workers,
    one process each, launched by MPI (``mpirun -np N python train.py``). Each worker holds one
    replica; ``num_replicas_in_sync`` is the number of workers."""

    def __init__(
        self, cluster_resolver: Any = None, communication_options: Optional[CommunicationOptions] = None
    ) -> None:
        super().__init__(CollectiveAllReduceExtended(self, cluster_resolver, communication_options))

    @property
    def cluster_resolver(self) -> Any:
        return getattr(self._extended, "_cluster_resolver", None)
