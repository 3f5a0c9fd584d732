"""Devices: fn runs every op on the host CPU, so this is TensorFlow's device API for a CPU-only
machine: ``tf.device`` (any well-formed spec is accepted and ops land on the CPU, as TF's soft
placement does), ``tf.config.list_physical_devices`` and ``Tensor.device``."""

from __future__ import annotations

import contextlib
from typing import Iterator, List, NamedTuple, Optional

from fn import _core

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class PhysicalDevice(NamedTuple):
    """``tf.config.PhysicalDevice``."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """``tf.config.LogicalDevice``."""

    name: str
    device_type: str


def list_physical_devices(device_type: Optional[str] = None) -> List[PhysicalDevice]:
    """``tf.config.list_physical_devices``: the CPU (device types match case-sensitively, as TF)."""
    if device_type not in (None, "CPU"):
        return []
    return [PhysicalDevice("/physical_device:CPU:0", "CPU")]


def list_logical_devices(device_type: Optional[str] = None) -> List[LogicalDevice]:
    """``tf.config.list_logical_devices``."""
    if device_type not in (None, "CPU"):
        return []
    return [LogicalDevice("/device:CPU:0", "CPU")]


_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _check_spec(spec: str) -> None:
    """Parses a device string as ``tf.DeviceSpec.from_string`` does (device types in any case:
    ``"cpu"``, ``"/gpu:0"``), raising its ValueErrors."""
    device_type = None
    for y in (x.split(":") for x in spec.split("/")):
        ly = len(y)
        if ly == 2 and y[0] in ("job", "replica", "task"):
            if y[0] != "job":
                int(y[1])  # TF's setter: "invalid literal for int() ..."
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[1]
            if y[2] != "*":
                int(y[2])
        elif ly and y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'.")


@contextlib.contextmanager
def device(device_name: Optional[str]) -> Iterator[None]:
    """``tf.device``: checks the spec; ops inside still run on the CPU (fn's only device)."""
    if device_name is not None and not isinstance(device_name, str):
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
        device_name = str(device_name)
    if device_name:
        _check_spec(device_name)
    yield


def _tensor_device(self: object) -> str:
    """``Tensor.device``: eager values live on the CPU; graph tensors carry no placement."""
    if isinstance(self, _core.EagerTensor):
        return CPU_DEVICE
    return ""
