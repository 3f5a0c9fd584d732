"""fn's ``tf.distribute``: strategies, replica contexts and distributed input.

Every fn process holds one replica (one CPU); several processes launched by MPI make a
multi-worker strategy. ``fn.distribute`` re-exports the public names.
"""

from fn._distribute.cluster import (
    ClusterResolver,
    ClusterSpec,
    MPIClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
)
from fn._distribute.context import (
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from fn._distribute.losses import compute_average_loss, scale_regularization_loss
from fn._distribute.multi_worker import MultiWorkerMirroredStrategy
from fn._distribute.one_device import MirroredStrategy, OneDeviceStrategy
from fn._distribute.options import (
    CollectiveCommunication,
    CommunicationImplementation,
    CommunicationOptions,
    InputContext,
    InputOptions,
    InputReplicationMode,
    ReduceOp,
    RunOptions,
    ValueContext,
)
from fn._distribute.replica import ReplicaContext
from fn._distribute.strategy import (
    Strategy,
    StrategyExtended,
    install_variable_hook,
    maybe_merge_call,
    strategy_supports_no_merge_call,
)
from fn._distribute.values import (
    DistributedDataset,
    DistributedIterator,
    DistributedValues,
    Mirrored,
    PerReplica,
)

__all__ = [
    "ClusterResolver",
    "ClusterSpec",
    "CollectiveCommunication",
    "CommunicationImplementation",
    "CommunicationOptions",
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "InputContext",
    "InputOptions",
    "InputReplicationMode",
    "MPIClusterResolver",
    "Mirrored",
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "PerReplica",
    "ReduceOp",
    "ReplicaContext",
    "RunOptions",
    "SimpleClusterResolver",
    "Strategy",
    "StrategyExtended",
    "TFConfigClusterResolver",
    "ValueContext",
    "compute_average_loss",
    "experimental_set_strategy",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
    "install_variable_hook",
    "maybe_merge_call",
    "scale_regularization_loss",
    "strategy_supports_no_merge_call",
]
