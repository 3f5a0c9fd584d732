"""``tf.distribute.OneDeviceStrategy`` and ``tf.distribute.MirroredStrategy`` on this machine's
one CPU (TF's ``one_device_strategy`` / ``mirrored_strategy`` on a CPU-only machine: one replica,
``num_replicas_in_sync == 1``, results of ``run`` are plain tensors)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from fn._distribute.replica import ReplicaContext
from fn._distribute.strategy import Strategy, StrategyExtended

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def _canonical_device(device: str) -> str:
    """``"/cpu:0"``, ``"CPU:0"``, ``"/device:CPU:0"`` -> TF's full name on this machine's CPU."""
    spec = device.strip()
    low = spec.lower()
    parts = [p for p in low.split("/") if p]
    kinds = [p for p in parts if not p.startswith(("job:", "replica:", "task:"))]
    kind = kinds[-1] if kinds else ""
    if kind.startswith("device:"):
        kind = kind[len("device:") :]
    if kind in ("cpu:0", "cpu"):
        return _CPU0
    raise ValueError(f"Unknown device {device!r}: fn runs on this machine's CPU only (use '/cpu:0').")


class _OneDeviceReplicaContext(ReplicaContext):
    """OneDeviceStrategy's replica context (TF's class name)."""


class _MirroredReplicaContext(ReplicaContext):
    """MirroredStrategy's replica context (TF's class name)."""


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

    def __init__(self, container_strategy: Strategy, devices: Optional[Sequence[str]], cross_device_ops: Any) -> None:
        super().__init__(container_strategy)
        if devices is None:
            devices = [_CPU0]
        if isinstance(devices, str):
            devices = [devices]
        devices = tuple(_canonical_device(d) for d in devices)
        if not devices:
            raise ValueError("Got an empty `devices` list and unable to recognize any local devices.")
        if len(set(devices)) != len(devices):
            raise ValueError("No duplicates allowed in `devices` argument: %s" % (devices,))
        self._devices = devices
        self._cross_device_ops = cross_device_ops

    @property
    def worker_devices(self) -> tuple:
        return self._devices

    def _make_replica_context(self) -> ReplicaContext:
        return _MirroredReplicaContext(self._container_strategy(), replica_id_in_sync_group=0)


class MirroredStrategy(Strategy):
    """``tf.distribute.MirroredStrategy``: synchronous replicas on this machine's devices; on a
    CPU-only machine (fn's case), one replica on the CPU."""

    def __init__(self, devices: Optional[Sequence[str]] = None, cross_device_ops: Any = None) -> None:
        super().__init__(MirroredExtended(self, devices, cross_device_ops))
