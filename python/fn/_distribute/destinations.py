"""Where a reduction's result goes (TF's ``cross_device_ops.validate_destinations`` and
``distribute_lib._batch_reduce_destination``).

TF's mirrored strategies (``MirroredStrategy``, ``MultiWorkerMirroredStrategy``) check the
destinations of every cross-device reduction: a tensor destination must carry a device. Inside a
Function, a tensor made outside ``strategy.run`` (an argument of the Function, a loop variable of a
``tf.range`` loop, a constant made before the call) or a variable's value has no requested device,
so ``all_reduce`` of it raises ``ValueError: destinations can not be empty``; tensors made inside
``strategy.run`` carry the replica's device (the strategy runs the replica function under
``tf.device``) and eager tensors always have one.
"""

from __future__ import annotations

from typing import Any

from fn import _core
from fn._distribute.values import DistributedValues
from fn._state.variables import Variable


def check_destinations(destinations: Any) -> bool:
    """Whether ``destinations`` names a place (TF's ``check_destinations``): a tensor or a variable
    by its device, anything else by its truth."""
    if isinstance(destinations, Variable) or _core.is_tensor(destinations):
        return bool(destinations.device)
    return bool(destinations)


def validate_destinations(destinations: Any) -> None:
    """TF's ``validate_destinations``: its two ValueErrors."""
    if not isinstance(destinations, (DistributedValues, Variable, str)) and not _core.is_tensor(destinations):
        raise ValueError(
            "destinations must be one of a `DistributedValues` object, a tf.Variable object, or a device string."
        )
    if not check_destinations(destinations):
        raise ValueError("destinations can not be empty")


def reduce_destination(value: Any, converted: Any) -> Any:
    """The destination ``ReplicaContext.all_reduce`` gives ``value`` (TF's
    ``_batch_reduce_destination`` of the value as a tensor, ``converted``: its device). A
    variable's value read while a Function is traced has no device (TF reads it colocated with its
    captured handle), so its destination is empty there; eagerly it is the variable's device."""
    if isinstance(value, Variable):
        return value.device if _core.executing_eagerly() else ""
    return converted.device
