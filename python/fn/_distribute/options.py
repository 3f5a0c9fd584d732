"""The small value types of ``tf.distribute``: ``ReduceOp``, ``InputReplicationMode``,
``InputContext``, ``ValueContext``, ``InputOptions``, ``RunOptions`` and the collective
``CommunicationOptions`` / ``CommunicationImplementation`` (TF's ``reduce_util``,
``distribute_lib`` and ``collective_util``)."""

from __future__ import annotations

import collections
import copy
import enum
from typing import Any, Optional, Union


class ReduceOp(enum.Enum):
    """``tf.distribute.ReduceOp``: how values of the replicas combine (``SUM`` or ``MEAN``)."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> "ReduceOp":
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name in ("SUM", "MEAN"):
            return ReduceOp(name)
        raise ValueError(
            "Could not convert from `tf.VariableAggregation` %s to`tf.distribute.ReduceOp` type" % aggregation
        )


def as_reduce_op(reduce_op: Union[str, ReduceOp]) -> ReduceOp:
    """TF accepts the op's name in any case ("sum", "MEAN") wherever a ReduceOp is expected."""
    if isinstance(reduce_op, str):
        return ReduceOp(reduce_op.upper())
    return reduce_op


class InputReplicationMode(enum.Enum):
    """``tf.distribute.InputReplicationMode``: one input pipeline per worker or per replica."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputContext:
    """``tf.distribute.InputContext``: what ``distribute_datasets_from_function``'s function is
    told about the input pipeline it builds (its id, how many there are, replicas in sync)."""

    __slots__ = ["_num_input_pipelines", "_input_pipeline_id", "_num_replicas_in_sync"]

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """The global batch divided by the replicas in sync (ValueError when it does not divide)."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(
                "The `global_batch_size` %r is not divisible by "
                "`num_replicas_in_sync` %r " % (global_batch_size, self._num_replicas_in_sync)
            )
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return "tf.distribute.InputContext(input pipeline id {}, total: {})".format(
            self.input_pipeline_id, self.num_input_pipelines
        )


class ValueContext:
    """``tf.distribute.experimental.ValueContext``: the replica a value function builds for."""

    __slots__ = ["_replica_id_in_sync_group", "_num_replicas_in_sync"]

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1) -> None:
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        return self._replica_id_in_sync_group

    def __str__(self) -> str:
        return "tf.distribute.ValueContext(replica id {},  total replicas in sync: {})".format(
            self.replica_id_in_sync_group, self.num_replicas_in_sync
        )


class RunOptions(
    collections.namedtuple(
        "RunOptions",
        [
            "experimental_enable_dynamic_batch_size",
            "experimental_bucketizing_dynamic_shape",
            "experimental_xla_options",
        ],
    )
):
    """``tf.distribute.RunOptions`` (accepted by ``Strategy.run``; TPU-only fields in TF)."""

    def __new__(
        cls,
        experimental_enable_dynamic_batch_size: bool = True,
        experimental_bucketizing_dynamic_shape: bool = False,
        experimental_xla_options: Any = None,
    ) -> "RunOptions":
        return super().__new__(
            cls,
            experimental_enable_dynamic_batch_size,
            experimental_bucketizing_dynamic_shape,
            experimental_xla_options,
        )


class InputOptions(
    collections.namedtuple(
        "InputOptions",
        [
            "experimental_fetch_to_device",
            "experimental_replication_mode",
            "experimental_place_dataset_on_device",
            "experimental_per_replica_buffer_size",
        ],
    )
):
    """``tf.distribute.InputOptions``: how distributed datasets are built."""

    def __new__(
        cls,
        experimental_fetch_to_device: Optional[bool] = None,
        experimental_replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
        experimental_place_dataset_on_device: bool = False,
        experimental_per_replica_buffer_size: int = 1,
    ) -> "InputOptions":
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(
            cls,
            experimental_fetch_to_device,
            experimental_replication_mode,
            experimental_place_dataset_on_device,
            experimental_per_replica_buffer_size,
        )


class CommunicationImplementation(enum.Enum):
    """``tf.distribute.experimental.CommunicationImplementation``: the collective algorithm asked
    for. fn runs every collective on MPI; ``RING`` and ``AUTO`` both mean MPI's own algorithm
    (``NCCL`` is accepted, as TF accepts it on a CPU-only machine, and also runs on MPI)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation


class CommunicationOptions:
    """``tf.distribute.experimental.CommunicationOptions``: options of cross-worker collectives.

    ``bytes_per_pack`` is the gradient bucket size (0: fn's default bucketing);
    ``timeout_seconds`` bounds how long a collective waits for the other workers. TF's default
    (None) waits forever; fn's multi-worker strategy treats None as its finite default
    (``fn._distribute.DEFAULT_TIMEOUT_SECONDS``) so a dead worker is an error, not a hang.
    """

    def __init__(
        self,
        bytes_per_pack: int = 0,
        timeout_seconds: Optional[float] = None,
        implementation: Union[str, CommunicationImplementation] = CommunicationImplementation.AUTO,
    ) -> None:
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError(
                "Argument `implementation` must be instance of "
                "`tf.distribute.experimental.CommunicationImplementation`."
            )
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options: Optional["CommunicationOptions"]) -> "CommunicationOptions":
        """These options overridden by the non-default fields of ``options`` (TF's ``Options.merge``)."""
        merged = copy.deepcopy(self)
        if options is None:
            return merged
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation != CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged

    def __str__(self) -> str:
        return (
            f"Options(bytes_per_pack={self.bytes_per_pack},"
            f"timeout_seconds={self.timeout_seconds}, "
            f"implementation={self.implementation})"
        )
