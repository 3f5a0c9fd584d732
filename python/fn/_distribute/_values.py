"""Distributed values and datasets (TF's ``values.py`` / ``input_lib.py``).

fn runs one replica per process (a worker is an MPI rank or the lone local process), so a
worker holds one value per ``DistributedValues``; ``strategy.run`` returns plain tensors (as TF
does for a single local replica) and ``PerReplica`` appears only when a user builds one. A
distributed dataset is the dataset this worker reads (its shard of each global batch) and its
iterator is an ``fn.data.Iterator`` (so it can be passed to a Function and advanced there).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from fn import _core
from fn._data.iterator_ops import Iterator as _DataIterator


class DistributedValues:
    """``tf.distribute.DistributedValues``: one value per local replica."""

    def __init__(self, values: Sequence[Any]) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        return self._values

    def _get(self) -> Any:
        return self._values[0]

    def __repr__(self) -> str:
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    __str__ = __repr__


class PerReplica(DistributedValues):
    """Values that differ between replicas (TF's ``values.PerReplica``)."""


class Mirrored(DistributedValues):
    """Values that are the same on every replica (TF's ``values.Mirrored``)."""


class DistributedIterator(_DataIterator):
    """``tf.distribute.DistributedIterator``: yields this worker's part of each global batch."""

    def __init__(self, dataset: Any, strategy: Any) -> None:
        super().__init__(dataset)
        self._strategy = strategy

    def __repr__(self) -> str:
        return f"<fn.distribute.DistributedIterator object at 0x{id(self):x}>"


class DistributedDataset:
    """``tf.distribute.DistributedDataset``: what ``experimental_distribute_dataset`` and
    ``distribute_datasets_from_function`` return; iterating it yields this worker's batches."""

    def __init__(self, dataset: Any, strategy: Any, cardinality: Optional[int] = None) -> None:
        self._dataset = dataset          # the per-worker dataset (already sharded / rebatched)
        self._strategy = strategy
        self._cardinality = dataset._cardinality() if cardinality is None else cardinality

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    @property
    def cardinality(self) -> int:
        return self._cardinality

    def __iter__(self) -> Any:
        if _core.executing_eagerly():
            return DistributedIterator(self._dataset, self._strategy)
        return iter(self._dataset)

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in dist_dataset`` (inside a Function: one graph loop)."""
        return self._dataset._fn_dataset_loop(body, init_state, extra_test)

    def __fn_composite__(self) -> tuple:
        return self._dataset.__fn_composite__()

    def reduce(self, initial_state: Any, reduce_fn: Callable) -> Any:
        """Folds ``reduce_fn(state, element)`` over this worker's elements."""
        state = initial_state
        for element in self:
            state = reduce_fn(state, element)
        return state

    def __repr__(self) -> str:
        return f"<fn.distribute.{type(self).__name__} object at 0x{id(self):x}>"


class DistributedDatasetsFromFunction(DistributedDataset):
    """The ``DistributedDataset`` of ``distribute_datasets_from_function`` (TF's class name)."""
