"""``fn.config.experimental`` (``tf.config.experimental``): the device helpers CPU code calls."""

from __future__ import annotations

from typing import Any

from fn._runtime.device import (
    LogicalDeviceConfiguration as VirtualDeviceConfiguration,
    get_logical_device_configuration as get_virtual_device_configuration,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration as set_virtual_device_configuration,
)


def get_memory_growth(device: Any) -> bool:
    """``tf.config.experimental.get_memory_growth``: a CPU has no memory-growth setting (KeyError,
    as TensorFlow)."""
    raise KeyError(device)


def set_memory_growth(device: Any, enable: bool) -> None:
    """``tf.config.experimental.set_memory_growth``: only GPUs have it; fn has none."""
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def enable_op_determinism() -> None:
    """``tf.config.experimental.enable_op_determinism``: fn's kernels are deterministic."""


from fn._public import export as _export

_export(globals())
