"""Devices: fn runs every op on the host CPU, so this is TensorFlow's device API for a CPU-only
machine: ``tf.device`` (any well-formed spec is accepted and ops land on the CPU, as TF's soft
placement does), ``tf.config.list_physical_devices`` and ``Tensor.device``."""

from __future__ import annotations

import bisect
import contextlib
import threading
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple

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
    """``tf.config.list_logical_devices``: the CPU, or the virtual CPUs configured for it."""
    if device_type not in (None, "CPU"):
        return []
    _runtime_state["initialized"] = True
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(num_logical_cpus())]


class LogicalDeviceConfiguration(
    NamedTuple(
        "LogicalDeviceConfiguration",
        [
            ("memory_limit", Optional[int]),
            ("experimental_priority", Optional[int]),
            ("experimental_device_ordinal", Optional[int]),
        ],
    )
):
    """``tf.config.LogicalDeviceConfiguration`` (also ``tf.config.experimental.VirtualDeviceConfiguration``):
    one logical device a physical device is split into."""

    def __new__(
        cls,
        memory_limit: Optional[int] = None,
        experimental_priority: Optional[int] = None,
        experimental_device_ordinal: Optional[int] = None,
    ) -> "LogicalDeviceConfiguration":
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


# The CPU's logical devices (TF's context._virtual_device_map for the one physical CPU). The
# configuration is frozen once something has looked at the logical devices (TF: once the runtime
# is initialized).
_runtime_state: dict = {"cpu_config": None, "initialized": False}


def num_logical_cpus() -> int:
    """How many logical CPU devices there are (1 unless virtual CPUs were configured)."""
    config = _runtime_state["cpu_config"]
    return len(config) if config else 1


def mark_runtime_initialized() -> None:
    """Called where the device list is first used (a strategy built on the devices)."""
    _runtime_state["initialized"] = True


def reset_runtime() -> None:
    """A fresh runtime (TF's ``context._reset_context``, for tests): the virtual-device
    configuration is dropped and can be set again."""
    _runtime_state["cpu_config"] = None
    _runtime_state["initialized"] = False


def get_logical_device_configuration(device: PhysicalDevice) -> Optional[List[LogicalDeviceConfiguration]]:
    """``tf.config.get_logical_device_configuration``."""
    if device not in list_physical_devices():
        raise ValueError("Unrecognized device: %s" % repr(device))
    config = _runtime_state["cpu_config"]
    return list(config) if config is not None else None


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: List[LogicalDeviceConfiguration]) -> None:
    """``tf.config.set_logical_device_configuration``: splits the CPU into virtual CPUs
    (``/device:CPU:0`` ... ``/device:CPU:{n-1}``) that distribution strategies place replicas on;
    fn runs all of them on the host's threads. TF's checks and errors."""
    if device not in list_physical_devices():
        raise ValueError("Unrecognized device: %s" % repr(device))
    for vdev in logical_devices:
        if vdev.memory_limit is not None:
            raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
        if vdev.experimental_priority is not None:
            raise ValueError("Setting experimental_priority on CPU virtual  devices is currently not supported")
        if vdev.experimental_device_ordinal is not None:
            raise ValueError("Setting experimental_device_ordinal on CPU virtual  devices is currently not supported")
    config = list(logical_devices)
    if _runtime_state["cpu_config"] == config:
        return
    if _runtime_state["initialized"]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _runtime_state["cpu_config"] = config


_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _parse_spec(spec: str) -> Tuple[Optional[str], Optional[int], Optional[int], Optional[str], Optional[int]]:
    """(job, replica, task, device type, device index) of a device string, as
    ``tf.DeviceSpec.from_string`` parses it (device types in any case: ``"cpu"``, ``"/gpu:0"``),
    raising its ValueErrors."""
    job = replica = task = device_type = index = None
    for y in (x.split(":") for x in spec.split("/")):
        ly = len(y)
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] in ("replica", "task"):
            v = int(y[1])  # TF's setter: "invalid literal for int() ..."
            replica, task = (v, task) if y[0] == "replica" else (replica, v)
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                index = int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[1].upper() if y[1] in ("cpu", "gpu") else y[1]
            if y[2] != "*":
                index = int(y[2])
        elif ly and y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'.")
    return job, replica, task, device_type, index


def _spec_string(parts: Tuple[Any, ...]) -> str:
    """``tf.DeviceSpec.to_string``: ``/job:j/replica:r/task:t/device:TYPE:index`` ('*': any index)."""
    job, replica, task, device_type, index = parts
    out = ""
    if job is not None:
        out += "/job:" + job
    if replica is not None:
        out += f"/replica:{replica}"
    if task is not None:
        out += f"/task:{task}"
    if device_type is not None:
        out += f"/device:{device_type}:{'*' if index is None else index}"
    return out


# Placements requested while a graph is traced (TF's Operation.device / NodeDef.device): per graph
# id and thread (a local replica traces on its own thread), the device scopes open in it (a function body does not inherit the caller's, as TF 2) and
# the points where the requested device changed, as (first node index, device string).
_graph_scopes: Dict[Tuple[int, int], List[Optional[Tuple[Any, ...]]]] = {}
_graph_devices: Dict[int, Tuple[List[int], List[str]]] = {}


def _merged(scopes: List[Optional[Tuple[Any, ...]]]) -> str:
    """The device of the open scopes: inner fields override outer ones; ``tf.device(None)`` drops
    the scopes outside it (TF's device function stack)."""
    parts: List[Any] = [None] * 5
    for spec in scopes:
        if spec is None:
            parts = [None] * 5
            continue
        parts = [b if b is not None else a for a, b in zip(parts, spec)]
    return _spec_string(tuple(parts))


def _record_device(graph: Any, scopes: List[Optional[Tuple[Any, ...]]]) -> None:
    starts, devices = _graph_devices.setdefault(graph.id, ([], []))
    starts.append(graph.num_nodes())
    devices.append(_merged(scopes))


def node_device(graph: Any, index: int) -> str:
    """The device requested for node ``index`` of a traced graph ("" when none was)."""
    entry = _graph_devices.get(graph.id)
    if entry is None:
        return ""
    k = bisect.bisect_right(entry[0], index) - 1
    return entry[1][k] if k >= 0 else ""


@contextlib.contextmanager
def device(device_name: Optional[str]) -> Iterator[None]:
    """``tf.device``: checks the spec; ops inside still run on the CPU (fn's only device). While a
    function is traced, its ops record the requested device (``Operation.device``)."""
    if device_name is not None and not isinstance(device_name, str):
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
        device_name = str(device_name)
    spec = _parse_spec(device_name) if device_name else None
    graph = _core.current_graph()
    if graph is None:
        yield
        return
    key = (graph.id, threading.get_ident())
    scopes = _graph_scopes.setdefault(key, [])
    scopes.append(spec if device_name is not None else None)
    if device_name == "":  # TF: an empty string merges nothing
        scopes[-1] = (None,) * 5
    _record_device(graph, scopes)
    try:
        yield
    finally:
        scopes.pop()
        _record_device(graph, scopes)
        if not scopes:
            del _graph_scopes[key]


def device_scope_open() -> bool:
    """Whether a ``tf.device`` scope is open in the graph being traced."""
    graph = _core.current_graph()
    return graph is not None and bool(_graph_scopes.get((graph.id, threading.get_ident())))


def adopt_scopes(thread_ident: int) -> None:
    """Starts this thread (a replica tracing into the graph another thread is building) from
    that thread's device scopes, as TF's replica threads copy their caller's device stack."""
    graph = _core.current_graph()
    if graph is not None:
        scopes = _graph_scopes.get((graph.id, thread_ident))
        if scopes:
            _graph_scopes[(graph.id, threading.get_ident())] = list(scopes)


def drop_scopes() -> None:
    """Forgets this thread's scopes in the graph being built (a replica thread that ends: thread
    idents are reused)."""
    graph = _core.current_graph()
    if graph is not None:
        _graph_scopes.pop((graph.id, threading.get_ident()), None)


def resume_scopes() -> None:
    """Called by a thread that takes over the graph being built from another: the nodes it adds
    from here get its own scopes' device."""
    graph = _core.current_graph()
    if graph is not None:
        _record_device(graph, _graph_scopes.get((graph.id, threading.get_ident()), []))


def _tensor_device(self: Any) -> str:
    """``Tensor.device``: eager values live on the CPU; a graph tensor's is its op's requested
    device."""
    if isinstance(self, _core.EagerTensor):
        return CPU_DEVICE
    graph = getattr(self, "graph", None)
    index = getattr(self, "_node_index", None)
    return node_device(graph, index) if graph is not None and index is not None else ""
