"""``fn.distribute`` (``tf.distribute``): run a computation on several replicas: the default
strategy, ``OneDeviceStrategy`` and ``MirroredStrategy`` on this machine's CPU, and (with
Open MPI and ``fn[mpi]``) ``MultiWorkerMirroredStrategy`` across processes."""

from __future__ import annotations

from fn._distribute import (
    DistributedDataset,
    DistributedIterator,
    DistributedValues,
    InputContext,
    InputOptions,
    InputReplicationMode,
    MirroredStrategy,
    MultiWorkerMirroredStrategy,
    OneDeviceStrategy,
    ReduceOp,
    ReplicaContext,
    RunOptions,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from fn._distribute.cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from fn.distribute import cluster_resolver, experimental

from fn._tf_compat._distribute_names import TPUStrategy

from fn._public import export as _export

# tf.types.experimental.distributed (attached here: fn.types sits below fn._distribute).
import fn.types.experimental as _types_experimental
from fn._distribute import types as _distributed_types

_types_experimental.distributed = _distributed_types  # type: ignore[attr-defined]
_types_namespace = vars(_types_experimental)
_types_namespace["__all__"] = sorted(set(_types_namespace["__all__"]) | {"distributed"})
_export(_types_namespace)

_export(globals())
