"""``tf.distribute.CrossDeviceOps`` and its implementations (``ReductionToOneDevice``,
``HierarchicalCopyAllReduce``, ``NcclAllReduce``): how a ``MirroredStrategy`` combines its
replicas' values. fn's replicas are virtual CPUs of one machine, so every implementation reduces
the same way (the replicas' values added in replica order); results land on each destination
device as TF's do: a ``Mirrored`` value for several devices, the tensor itself for one."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

from fn._distribute import mirrored_run
from fn._distribute.options import ReduceOp
from fn._distribute.values import DistributedValues, Mirrored


def _num_destinations(destinations: Any) -> int:
    if isinstance(destinations, DistributedValues):
        return len(destinations._values)
    mirrored = getattr(destinations, "_mirrored_values", None)
    if mirrored is not None:  # a MirroredVariable: one copy per replica
        return len(mirrored)
    if isinstance(destinations, str) or hasattr(destinations, "handle"):
        return 1
    raise ValueError(
        "destinations must be one of a `DistributedValues` object, a tf.Variable object, or a device string."
    )


def _on(value: Any, destinations: Any) -> Any:
    n = _num_destinations(destinations)
    return Mirrored([value] * n) if n > 1 else value


class CrossDeviceOps:
    """``tf.distribute.CrossDeviceOps``: reduce and broadcast across devices."""

    def reduce(self, reduce_op: ReduceOp, per_replica_value: Any, destinations: Any, options: Any = None) -> Any:
        """``per_replica_value`` reduced (SUM or MEAN), on ``destinations``' devices. A plain value
        is one replica's value: its reduction is itself."""
        if not isinstance(reduce_op, ReduceOp):
            raise ValueError("`reduce_op` must be Reduce.SUM or Reduce.MEAN.")
        _num_destinations(destinations)
        if isinstance(per_replica_value, DistributedValues):
            n = len(per_replica_value._values)
            reduced = mirrored_run.reduce_per_replica(reduce_op, per_replica_value, n)
        else:
            reduced = per_replica_value
        return _on(reduced, destinations)

    def batch_reduce(
        self, reduce_op: ReduceOp, value_destination_pairs: Sequence[Tuple[Any, Any]], options: Any = None
    ) -> List[Any]:
        """``reduce`` of each ``(value, destinations)`` pair."""
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor: Any, destinations: Any) -> Any:
        """``tensor`` copied to ``destinations``' devices."""
        return _on(tensor, destinations)


class ReductionToOneDevice(CrossDeviceOps):
    """``tf.distribute.ReductionToOneDevice``: values gathered on one device, reduced there."""

    def __init__(self, reduce_to_device: Optional[str] = None, accumulation_fn: Optional[Callable] = None) -> None:
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduceCrossDeviceOps(CrossDeviceOps):
    _algorithm = ""

    def __init__(self, num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(f"{self._algorithm} requires num_packs >= 0, but {num_packs} is specified")
        self._num_packs = num_packs


class HierarchicalCopyAllReduce(_AllReduceCrossDeviceOps):
    """``tf.distribute.HierarchicalCopyAllReduce`` (TF's all-reduce for DGX-1-like GPU links)."""

    _algorithm = "HierarchicalCopy"


class NcclAllReduce(_AllReduceCrossDeviceOps):
    """``tf.distribute.NcclAllReduce`` (NCCL on GPUs in TF)."""

    _algorithm = "NCCL all-reduce"
