"""``tf.distribute.experimental.CentralStorageStrategy``: variables on one parameter device,
the computation replicated over the compute devices (TF's default: every GPU, else CPU:0). On
fn's CPU-only machine that is one replica with plain variables, as TF gives without GPUs. Several
compute devices need TF's AggregatingVariable, which fn does not build: that raises at once."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from fn._distribute.one_device import MirroredExtended, _canonical_device
from fn._distribute.strategy import Strategy


class CentralStorageExtended(MirroredExtended):
    _mirrors_variables = False  # TF: plain variables on the parameter device

    def __init__(self, container_strategy: Strategy, compute_devices: Sequence[str], parameter_device: str) -> None:
        super().__init__(container_strategy, compute_devices, None)
        self._parameter_device = parameter_device

    @property
    def worker_devices(self) -> Any:
        return list(self._devices)  # a list in TF's CentralStorageStrategy

    @property
    def parameter_devices(self) -> tuple:
        return (self._parameter_device,)


class CentralStorageStrategy(Strategy):
    """``tf.distribute.experimental.CentralStorageStrategy`` on this machine's CPU."""

    def __init__(self, compute_devices: Optional[Sequence[str]] = None, parameter_device: Optional[str] = None) -> None:
        devices = ["/device:CPU:0"] if compute_devices is None else list(compute_devices)
        if len(devices) > 1:
            raise NotImplementedError(
                "CentralStorageStrategy over several compute devices (AggregatingVariable) is not built "
                "in fn; use MirroredStrategy over the virtual CPUs, or one compute device."
            )
        parameter = _canonical_device(parameter_device or (devices[0] if devices else "/device:CPU:0"))
        super().__init__(CentralStorageExtended(self, devices, parameter))
