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
from fn import nest
from fn._tensor.tensor_spec import TensorSpec


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

    def __str__(self) -> str:  # TF: the values' str (print shows tf.Tensor(...) lines)
        body = ",\n".join(f"  {i}: {str(v)}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"


class PerReplica(DistributedValues):
    """Values that differ between replicas (TF's ``values.PerReplica``): a multi-worker
    strategy's dataset elements. Passed to a Function it is a composite of its tensors."""

    def __fn_composite__(self) -> tuple:
        return PerReplicaSpec([_spec_of(v) for v in self._values]), list(self._values)


def _spec_of(t: Any) -> Any:
    return TensorSpec(t.shape, t.dtype)


class PerReplicaSpec:
    """The trace type of a ``PerReplica`` (TF's ``values.PerReplicaSpec``): its values' specs."""

    def __init__(self, value_specs: Sequence[Any]) -> None:
        self._value_specs = tuple(value_specs)

    def _component_specs(self) -> list:
        return list(self._value_specs)

    def _fn_from_components(self, components: Sequence[Any]) -> PerReplica:
        return PerReplica(components)

    def __fn_composite__(self) -> tuple:
        return self, self._component_specs()

    @property
    def value_type(self) -> type:
        return PerReplica

    def is_subtype_of(self, other: Any) -> bool:
        return (
            type(other) is PerReplicaSpec
            and len(other._value_specs) == len(self._value_specs)
            and all(a.is_subtype_of(b) for a, b in zip(self._value_specs, other._value_specs))
        )

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, PerReplica):
            other = other.__fn_composite__()[0]
        return (
            type(other) is PerReplicaSpec
            and len(other._value_specs) == len(self._value_specs)
            and all(a.is_compatible_with(b) for a, b in zip(self._value_specs, other._value_specs))
        )

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional["PerReplicaSpec"]:
        if any(type(o) is not PerReplicaSpec or len(o._value_specs) != len(self._value_specs) for o in others):
            return None
        specs = []
        for i, s in enumerate(self._value_specs):
            sup = s.most_specific_common_supertype([o._value_specs[i] for o in others])
            if sup is None:
                return None
            specs.append(sup)
        return PerReplicaSpec(specs)

    def __eq__(self, other: Any) -> bool:
        return type(other) is PerReplicaSpec and self._value_specs == other._value_specs

    def __hash__(self) -> int:
        return hash(("PerReplicaSpec",) + self._value_specs)

    def __repr__(self) -> str:
        return f"PerReplicaSpec({', '.join(repr(s) for s in self._value_specs)})"


class Mirrored(DistributedValues):
    """Values that are the same on every replica (TF's ``values.Mirrored``)."""


class DistributedIterator(_DataIterator):
    """``tf.distribute.DistributedIterator``: yields this worker's part of each global batch."""

    def __init__(self, dataset: Any, strategy: Any) -> None:
        super().__init__(dataset)
        self._strategy = strategy
        # As TF: across workers each element's tensors are PerReplica values (one local replica).
        self._wrap = bool(strategy.extended._in_multi_worker_mode())

    def _wrapped(self, element: Any) -> Any:
        if not self._wrap or not _core.executing_eagerly():
            return element
        return nest.map_structure(lambda t: PerReplica([t]), element)

    def __next__(self) -> Any:
        return self._wrapped(super().__next__())

    def get_next(self) -> Any:
        return self._wrapped(super().get_next())

    def __repr__(self) -> str:
        return f"<fn.distribute.DistributedIterator object at 0x{id(self):x}>"


class DistributedDataset:
    """``tf.distribute.DistributedDataset``: what ``experimental_distribute_dataset`` and
    ``distribute_datasets_from_function`` return; iterating it yields this worker's batches."""

    def __init__(self, dataset: Any, strategy: Any, cardinality: Optional[int] = None) -> None:
        self._dataset = dataset  # the per-worker dataset (already sharded / rebatched)
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
