"""Distributed input (TF's ``input_lib``): the dataset each worker reads.

With one worker the dataset is read as it is. With several, TF's multi-worker rule: every
worker runs the whole pipeline, each global batch is split into one piece per replica and each
worker keeps its own piece (``AutoShardPolicy.DATA``, the policy ``AUTO`` falls back to for
datasets not read from files).
"""

from __future__ import annotations

from typing import Any, Callable

from fn._distribute.options import InputContext, InputReplicationMode
from fn._distribute.values import DistributedDataset, DistributedDatasetsFromFunction
from fn._distribute.shard import shard_global_batches


def check_options(options: Any, from_function: bool) -> None:
    if options is None:
        return
    mode = getattr(options, "experimental_replication_mode", InputReplicationMode.PER_WORKER)
    if mode == InputReplicationMode.PER_REPLICA and not from_function:
        raise NotImplementedError(
            "InputReplicationMode.PER_REPLICA is only supported in `distribute_datasets_from_function`."
        )
    if not from_function:
        return
    # TF's input_util.get_distributed_datasets_from_function checks
    place = getattr(options, "experimental_place_dataset_on_device", False)
    if mode != InputReplicationMode.PER_REPLICA and place:
        raise ValueError(
            "When `experimental_place_dataset_on_device` is set for dataset placement, you must also specify "
            "`PER_REPLICA` for the replication mode"
        )
    if mode == InputReplicationMode.PER_REPLICA and place and getattr(options, "experimental_fetch_to_device", True):
        raise ValueError(
            "`experimental_place_dataset_on_device` can not be set to True when experimental_fetch_to_device is "
            "True and replication mode is set to `PER_REPLICA`"
        )


def distribute_dataset(strategy: Any, dataset: Any, options: Any) -> DistributedDataset:
    """``strategy.experimental_distribute_dataset``: this worker's share of every global batch."""
    check_options(options, from_function=False)
    extended = strategy.extended
    if extended._num_workers > 1:
        dataset = shard_global_batches(dataset, extended._num_workers, extended._worker_id)
    return DistributedDataset(dataset, strategy)


def datasets_from_function(
    strategy: Any, dataset_fn: Callable, input_context: InputContext, options: Any
) -> DistributedDataset:
    """``strategy.distribute_datasets_from_function``: the worker's own pipeline, as built by
    ``dataset_fn(input_context)`` (the function shards and batches per replica itself)."""
    check_options(options, from_function=True)
    return DistributedDatasetsFromFunction(dataset_fn(input_context), strategy)
