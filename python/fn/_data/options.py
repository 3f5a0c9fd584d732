"""``tf.data.Options`` and its groups (``tf.data.experimental.OptimizationOptions``, ...):
settings a dataset carries (``Dataset.options()``, ``with_options``), kept and merged as TF
does. fn's parallel map/interleave always produce the sequential order, which
``deterministic=False`` allows; the other settings (threading, optimizations) have no effect."""

from __future__ import annotations

import enum
from typing import Any, Dict


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy``."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """``tf.data.experimental.ExternalStatePolicy``."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsGroup:
    """Attributes from ``_fields`` (default None); setting another name is an error, as TF."""

    _fields: Dict[str, Any] = {}
    _mutable: bool

    def __init__(self) -> None:
        for k, default in self._fields.items():
            object.__setattr__(self, k, default() if callable(default) and isinstance(default, type) else default)
        object.__setattr__(self, "_mutable", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        if not self._mutable:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no "
                "effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset "
                "options."
            )
        object.__setattr__(self, name, value)

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self._fields)

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def _merge(self, other: "_OptionsGroup") -> "_OptionsGroup":
        out = type(self)()
        for k in self._fields:
            a, b = getattr(self, k), getattr(other, k)
            if isinstance(a, _OptionsGroup):
                v: Any = a._merge(b)
            else:
                v = b if b is not None else a
            object.__setattr__(out, k, v)
        return out

    def _freeze(self) -> None:
        for k in self._fields:
            v = getattr(self, k)
            if isinstance(v, _OptionsGroup):
                v._freeze()
        object.__setattr__(self, "_mutable", False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self._fields)})"


class AutotuneOptions(_OptionsGroup):
    """``tf.data.experimental.AutotuneOptions``."""

    _fields = {
        "enabled": None,
        "cpu_budget": None,
        "ram_budget": None,
        "autotune_algorithm": None,
        "initial_parallelism": None,
        "min_parallelism": None,
    }


class DistributeOptions(_OptionsGroup):
    """``tf.data.experimental.DistributeOptions``."""

    _fields = {"auto_shard_policy": None, "num_devices": None}


class OptimizationOptions(_OptionsGroup):
    """``tf.data.experimental.OptimizationOptions``."""

    _fields = {
        name: None
        for name in (
            "apply_default_optimizations",
            "filter_fusion",
            "filter_parallelization",
            "inject_prefetch",
            "seq_interleave_prefetch",
            "map_and_batch_fusion",
            "map_and_filter_fusion",
            "map_fusion",
            "map_parallelization",
            "noop_elimination",
            "parallel_batch",
            "shuffle_and_repeat_fusion",
        )
    }


class ThreadingOptions(_OptionsGroup):
    """``tf.data.ThreadingOptions``."""

    _fields = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class Options(_OptionsGroup):
    """``tf.data.Options``: ``deterministic``, ``autotune``, ``experimental_optimization``,
    ``threading``, ``experimental_distribute``, ..."""

    _fields = {
        "autotune": AutotuneOptions,
        "deterministic": None,
        "experimental_deterministic": None,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": None,
        "experimental_optimization": OptimizationOptions,
        "experimental_slack": None,
        "experimental_symbolic_checkpoint": None,
        "experimental_warm_start": None,
        "threading": ThreadingOptions,
        "dataset_name": None,
        "framework_type": None,
    }

    def merge(self, options: "Options") -> "Options":
        """The options with ``options``' set values taking precedence."""
        return self._merge(options)  # type: ignore[return-value]


__all__ = [
    "Options",
    "AutotuneOptions",
    "DistributeOptions",
    "OptimizationOptions",
    "ThreadingOptions",
    "AutoShardPolicy",
    "ExternalStatePolicy",
]
