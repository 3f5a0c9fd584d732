"""fn's ``tf.distribute``: strategies, replica contexts and distributed input.

Every fn process holds one replica (one CPU); several processes launched by MPI make a
multi-worker strategy. ``fn.distribute`` re-exports the public names.
"""
from fn._distribute._context import (experimental_set_strategy, get_replica_context, get_strategy,  # noqa: F401
                                     has_strategy, in_cross_replica_context)
from fn._distribute._options import (CollectiveCommunication, CommunicationImplementation,  # noqa: F401
                                     CommunicationOptions, InputContext, InputOptions,
                                     InputReplicationMode, ReduceOp, RunOptions, ValueContext)
from fn._distribute._replica import ReplicaContext  # noqa: F401
from fn._distribute._strategy import (Strategy, StrategyExtended, maybe_merge_call,  # noqa: F401
                                      strategy_supports_no_merge_call)
from fn._distribute._values import (DistributedDataset, DistributedIterator, DistributedValues,  # noqa: F401
                                    Mirrored, PerReplica)
from fn._distribute._one_device import MirroredStrategy, OneDeviceStrategy  # noqa: F401
from fn._distribute._losses import compute_average_loss, scale_regularization_loss  # noqa: F401

from fn._distribute._strategy import _install_variable_hook

_install_variable_hook()
