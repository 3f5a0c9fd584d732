"""``fn.config``: ``run_functions_eagerly`` and devices (as ``tf.config``; fn runs on the CPU only)
and ``explain_retracing`` (beyond TF)."""

from __future__ import annotations

from typing import List, Optional

from fn import _core
from fn._runtime.device import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
)
from fn.config import experimental, threading


def run_functions_eagerly(run_eagerly: bool) -> None:
    """``tf.config.run_functions_eagerly``: when True every Function runs its Python body eagerly."""
    _core.set_run_eagerly(bool(run_eagerly))


def functions_run_eagerly() -> bool:
    """``tf.config.functions_run_eagerly``."""
    return _core.run_eagerly()


def get_visible_devices(device_type: Optional[str] = None) -> List[PhysicalDevice]:
    """``tf.config.get_visible_devices``: fn's only device is the CPU."""
    return list_physical_devices(device_type)


def set_visible_devices(devices: object, device_type: Optional[str] = None) -> None:
    """``tf.config.set_visible_devices``: the CPU must stay visible (fn has no other device)."""
    devs = devices if isinstance(devices, (list, tuple)) else [devices]
    if device_type in (None, "CPU") and not any(getattr(d, "device_type", None) == "CPU" for d in devs):
        raise ValueError("Visible device list must contain at least one CPU device.")


def get_soft_device_placement() -> bool:
    """``tf.config.get_soft_device_placement``: always on (ops fall back to the CPU)."""
    return True


def set_soft_device_placement(enabled: bool) -> None:
    """``tf.config.set_soft_device_placement``: accepted; fn places every op on the CPU."""


def explain_retracing(enabled: bool = True) -> None:
    """Beyond TF: print, on every retrace, which argument's trace type differed from the closest
    cached signature and how (also kept in each Function's ``_retrace_log``)."""
    from fn._function.function import _explain

    _explain.enabled = bool(enabled)


from fn._public import export as _export

_export(globals())
