"""``tf.distribute.experimental.CentralStorageStrategy``: variables on one parameter device,
the computation replicated over the compute devices (TF's default: every GPU, else CPU:0).

With one compute device (TF's default on a CPU-only machine) it is one replica with plain
variables. With several (virtual CPUs made by ``tf.config.set_logical_device_configuration``, or
GPU names, which fn places on the CPU as TF's soft placement does) the replicas run as
``MirroredStrategy``'s (``strategy.run`` gives ``PerReplica`` values, inputs are split the same
way), but each variable is one ``AggregatingVariable`` on the parameter device: a replica-context
update is aggregated over the replicas and applied once (TF's ``ParameterServerStrategyExtended``
on one machine)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from fn._distribute import context as _context
from fn._distribute.one_device import MirroredExtended, _canonical_device
from fn._distribute.strategy import Strategy

_LOCAL_CPU = "/device:CPU:0"  # TF's parameter device for several compute devices


class CentralStorageExtended(MirroredExtended):
    _mirrors_variables = False  # TF: plain variables (one device) or AggregatingVariables

    def __init__(
        self, container_strategy: Strategy, compute_devices: Sequence[str], parameter_device: Optional[str]
    ) -> None:
        super().__init__(container_strategy, compute_devices, None)
        if parameter_device is None:  # TF: the compute device itself if only one, else the CPU
            parameter_device = self._devices[0] if len(self._devices) == 1 else _LOCAL_CPU
        self._parameter_device = parameter_device

    @property
    def worker_devices(self) -> Any:
        return list(self._devices)  # a list in TF's CentralStorageStrategy

    @property
    def parameter_devices(self) -> tuple:
        return (self._parameter_device,)

    def _on_variable_created(self, variable: Any) -> None:
        if self._num_local_replicas > 1:  # TF wraps variables only for several replicas
            from fn._distribute.aggregating_variable import wrap

            wrap(variable, _canonical_device(self._parameter_device))

    def _distribute_datasets_from_function(self, dataset_fn: Callable, options: Any) -> Any:
        from fn._distribute.options import InputReplicationMode

        if getattr(options, "experimental_replication_mode", None) != InputReplicationMode.PER_REPLICA:
            return super()._distribute_datasets_from_function(dataset_fn, options)
        # TF's ParameterServerStrategyExtended builds one pipeline for its one input worker
        # whatever the mode, and PER_REPLICA then hands out its elements as they are (not split).
        from fn._distribute.input import datasets_from_function

        return datasets_from_function(self._container_strategy(), dataset_fn, self._input_context(), options)

    def _update(self, var: Any, fn: Callable, args: Any, kwargs: dict, group: bool) -> Any:
        # One copy of each variable: the update runs once, with the first replica's value of a
        # merged argument (TF's ParameterServerStrategyExtended._update, _select_single_value).
        from fn._distribute.mirrored_run import select_replica

        return self._update_non_slot(var, fn, (var,) + tuple(select_replica(0, args)), select_replica(0, kwargs), group)

    def _update_non_slot(self, colocate_with: Any, fn: Callable, args: Any, kwargs: dict, should_group: bool) -> Any:
        with _context.update_context(0):
            result = fn(*args, **kwargs)
        if should_group:
            return result
        from fn import nest

        return nest.map_structure(self._local_results, result)


class CentralStorageStrategy(Strategy):
    """``tf.distribute.experimental.CentralStorageStrategy`` over this machine's (virtual) CPUs."""

    def __init__(self, compute_devices: Optional[Sequence[str]] = None, parameter_device: Optional[str] = None) -> None:
        devices = ["/device:CPU:0"] if compute_devices is None else list(compute_devices)
        super().__init__(CentralStorageExtended(self, devices, parameter_device))
