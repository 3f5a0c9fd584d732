"""Devices: fn runs every op on the host CPU, so this is TensorFlow's device API for a CPU-only
machine: ``tf.device`` (any well-formed spec is accepted and ops land on the CPU, as TF's soft
placement does), ``tf.config.list_physical_devices`` and ``Tensor.device``."""
from __future__ import annotations

import contextlib
import re
from typing import Iterator, List, NamedTuple, Optional

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


_FIELD = re.compile(r"^(job|replica|task|device):(.*)$", re.I)
_DEVICE = re.compile(r"^([A-Za-z_]+)(?::(\d+|\*))?$")


def _check_spec(spec: str) -> None:
    """Parses a device string as ``tf.DeviceSpec.from_string`` does, raising its ValueError."""
    for part in filter(None, spec.split("/")):
        m = _FIELD.match(part)
        if m is not None:
            key, value = m.group(1).lower(), m.group(2)
            if key == "device" and _DEVICE.match(value):
                continue
            if key in ("replica", "task") and value.isdigit():
                continue
            if key == "job" and value:
                continue
        elif _DEVICE.match(part) and part.split(":")[0].upper() in ("CPU", "GPU", "TPU") \
                and ":" in part:
            continue
        raise ValueError(f"Unknown attribute '{part}' is encountered while parsing the device "
                         f"spec: '{spec}'.")


@contextlib.contextmanager
def device(device_name: Optional[str]) -> Iterator[None]:
    """``tf.device``: checks the spec; ops inside still run on the CPU (fn's only device)."""
    if device_name is not None and not isinstance(device_name, str):
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions when eager execution is "
                               "enabled.")
        device_name = str(device_name)
    if device_name:
        _check_spec(device_name)
    yield


def _tensor_device(self: object) -> str:
    """``Tensor.device``: eager values live on the CPU; graph tensors carry no placement."""
    from fn import _core
    if isinstance(self, _core.EagerTensor):
        return CPU_DEVICE
    return ""


def _install() -> None:
    from fn import _core
    _core.Tensor.device = property(_tensor_device)
