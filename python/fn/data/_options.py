"""``tf.data.Options`` and its option groups, ``Dataset.with_options``/``options``.

fn runs pipelines synchronously in one thread, so options change no element: they are recorded,
merged along the pipeline as TF merges them (a later ``with_options`` wins per field), and read
back by ``options()``."""
from __future__ import annotations

import enum
from typing import Any, Dict, Iterator as PyIterator


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


class _OptionGroup:
    """A set of named options, each None until set; unknown names are an AttributeError."""

    _fields: Dict[str, Any] = {}

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name: str) -> Any:
        fields = type(self)._fields
        if name not in fields:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        values = self.__dict__["_values"]
        if name not in values and isinstance(fields[name], type):
            values[name] = fields[name]()   # nested group, made on first access
        return values.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self)._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        self._values[name] = value

    def _merge(self, other: "_OptionGroup") -> None:
        for name, value in other._values.items():
            if isinstance(value, _OptionGroup):
                getattr(self, name)._merge(value)
            elif value is not None:
                self._values[name] = value

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self._values == other._values

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._values})"


class OptimizationOptions(_OptionGroup):
    """``tf.data.experimental.OptimizationOptions``."""
    _fields = dict.fromkeys(["apply_default_optimizations", "filter_fusion", "map_and_batch_fusion",
                             "map_and_filter_fusion", "map_fusion", "map_parallelization",
                             "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion",
                             "inject_prefetch", "seq_interleave_prefetch"])


class DistributeOptions(_OptionGroup):
    """``tf.data.experimental.DistributeOptions``."""
    _fields = dict.fromkeys(["auto_shard_policy", "num_devices"])


class ThreadingOptions(_OptionGroup):
    """``tf.data.ThreadingOptions``."""
    _fields = dict.fromkeys(["max_intra_op_parallelism", "private_threadpool_size"])


class Options(_OptionGroup):
    """``tf.data.Options``: settings of a pipeline (recorded; fn's pipelines run synchronously)."""
    _fields = {**dict.fromkeys(["deterministic", "experimental_external_state_policy",
                                "experimental_slack", "experimental_symbolic_checkpoint",
                                "experimental_warm_start", "autotune", "dataset_name",
                                "framework_type"]),
               "experimental_optimization": OptimizationOptions,
               "experimental_distribute": DistributeOptions,
               "threading": ThreadingOptions}

    def merge(self, options: "Options") -> "Options":
        """A new Options: this one's values overridden by ``options``' set values."""
        out = Options()
        out._merge(self)
        out._merge(options)
        return out


def _with_options(self: Any, options: Options, name: Any = None) -> Any:
    """``Dataset.with_options``: the same elements, with ``options`` merged over the input's."""
    if not isinstance(options, Options):
        raise TypeError(f"`options` must be a `tf.data.Options`, got {type(options).__name__}")
    from fn.data._transforms import _UnaryDataset

    class _OptionsDataset(_UnaryDataset):
        _type_name = "_OptionsDataset"

        def __init__(self, input_dataset: Any, opts: Options) -> None:
            super().__init__(input_dataset, input_dataset.element_spec)
            self._options = input_dataset.options().merge(opts)

        def _elements(self) -> PyIterator[Any]:
            return self._input._elements()

    return _OptionsDataset(self, options)


def _options(self: Any) -> Options:
    """``Dataset.options``: the options set on this pipeline (merged over its inputs')."""
    own = getattr(self, "_options", None)
    if own is not None:
        return own
    merged = Options()
    for d in getattr(self, "_inputs", ()):
        merged._merge(d.options())
    return merged
