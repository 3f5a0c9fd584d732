"""Distributed input over several local replicas (``MirroredStrategy`` over virtual CPUs): TF's
rebatch splits each batch of ``b`` rows into one piece per replica (contiguous, ``ceil(b / n)``
rows each in order, so the last pieces may be short or empty) and its multi-device iterator hands
replica ``i`` piece ``i``. Here one pass over the
pipeline yields the ``n`` pieces of a batch together, and iteration regroups them into
``PerReplica`` values, eagerly and inside a Function. ``distribute_datasets_from_function``'s
pipeline gives per-replica batches already: replica ``i`` gets element ``i`` of each group of
``n`` consecutive elements. With ``InputReplicationMode.PER_REPLICA`` each replica has its own
pipeline (one ``dataset_fn`` call per replica) and replica ``i`` gets pipeline ``i``'s elements."""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional

from fn import nest
from fn._data import structure
from fn._data.structure import IteratorSpec
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._distribute.mirrored_run import regroup
from fn._data.dataset_ops import INFINITE, UNKNOWN, Dataset
from fn._data.transforms import _UnaryDataset
from fn._distribute.shard import _WorkerShardDataset
from fn._distribute.values import DistributedDataset, PerReplica, PerReplicaSpec


class _ReplicaPiecesDataset(_WorkerShardDataset):
    """Elements are tuples of the ``replicas`` pieces of each input batch."""

    def __init__(self, input_dataset: Any, replicas: int) -> None:
        super().__init__(input_dataset, replicas, None)
        self._piece_spec = self._element_spec
        self._element_spec = tuple(self._piece_spec for _ in range(replicas))

    def _elements(self) -> Iterator[Any]:
        for element in self._input._elements():
            flat = structure.flatten(element)
            rows = int(flat[0].shape[0])
            size = -(-rows // self._workers)  # TF's rebatch: ceil(rows / n) rows each, in order
            bounds = [(min(k * size, rows), min((k + 1) * size, rows)) for k in range(self._workers)]
            yield tuple(structure.pack(self._piece_spec, [t[b:e] for t in flat]) for b, e in bounds)

    def _cardinality(self) -> int:
        return self._input._cardinality()


class _ConsecutiveDataset(_UnaryDataset):
    """Elements are tuples of ``replicas`` consecutive input elements (the per-replica batches of
    ``distribute_datasets_from_function``: TF hands replica ``i`` element ``i`` of each group); a
    last, short group is filled with empty batches, as TF's partial-batch handling."""

    def __init__(self, input_dataset: Any, replicas: int) -> None:
        # the per-replica spec: the batch dimension relaxed (a short group's fillers are empty)
        self._piece_spec = structure.map_structure(_relaxed, input_dataset.element_spec)
        super().__init__(input_dataset, tuple(self._piece_spec for _ in range(replicas)))
        self._replicas = replicas

    def _elements(self) -> Iterator[Any]:
        group: List[Any] = []
        for element in self._input._elements():
            group.append(structure.pack(self._piece_spec, structure.flatten(element)))
            if len(group) == self._replicas:
                yield tuple(group)
                group = []
        if group and all(t.shape.rank for t in structure.flatten(group[0])):  # scalars: no empty batch
            empty = structure.pack(self._piece_spec, [t[0:0] for t in structure.flatten(group[0])])
            yield tuple(group + [empty] * (self._replicas - len(group)))

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        return -(-n // self._replicas) if n > 0 else n


class _ReplicaPipelinesDataset(Dataset):
    """Elements are tuples of the next element of each replica's pipeline (TF's per-replica
    iterators). A pipeline that ends while others go on gives empty batches when its batch
    dimension is unknown (TF's partial-batch handling); otherwise iteration ends with the first
    pipeline that ends."""

    def __init__(self, datasets: List[Any]) -> None:
        piece_spec = datasets[0].element_spec
        for d in datasets[1:]:
            piece_spec = structure._spec_supertype(piece_spec, d.element_spec) or d.element_spec
        self._piece_spec = piece_spec
        self._partial = all(
            s.shape.rank is not None and s.shape.rank > 0 and s.shape[0] is None for s in structure.flatten(piece_spec)
        )
        super().__init__(tuple(datasets), tuple(piece_spec for _ in datasets))

    def _elements(self) -> Iterator[Any]:
        its: List[Optional[Iterator[Any]]] = [d._elements() for d in self._inputs]
        last: List[Any] = [None] * len(its)
        while True:
            items: List[Any] = []
            for i, it in enumerate(its):
                element = next(it, _END) if it is not None else _END
                if element is _END:
                    if not self._partial:
                        return
                    its[i] = None
                else:
                    last[i] = element
                items.append(element)
            if all(x is _END for x in items):
                return
            yield tuple(
                structure.pack(self._piece_spec, structure.flatten(x))
                if x is not _END
                else structure.pack(self._piece_spec, [t[0:0] for t in structure.flatten(_template(last, i))])
                for i, x in enumerate(items)
            )

    def _cardinality(self) -> int:
        cards = [d._cardinality() for d in self._inputs]
        if any(c == UNKNOWN for c in cards):
            return UNKNOWN
        finite = [c for c in cards if c >= 0]
        if not finite:
            return INFINITE
        if self._partial:
            return INFINITE if len(finite) < len(cards) else max(finite)
        return min(finite)


_END = object()


def _template(last: List[Any], i: int) -> Any:
    """An element to take an empty batch's shape from: pipeline ``i``'s last, else any other's."""
    if last[i] is not None:
        return last[i]
    return next(x for x in last if x is not None)


def _relaxed(spec: Any) -> Any:
    if spec.shape.rank is None or spec.shape.rank == 0:
        return spec
    return TensorSpec(TensorShape([None]).concatenate(spec.shape[1:]), spec.dtype)


def _per_replica(element: Any) -> Any:
    return regroup(list(element), PerReplica)


class _LocalReplicasIteratorSpec(IteratorSpec):
    """The trace type of a local-replicas iterator argument (its own class: never equal to a plain
    iterator's of tuples)."""

    _label = "DistributedIteratorSpec"

    def _fn_from_components(self, components: List[Any]) -> Any:
        return _LocalReplicasIterator(super()._fn_from_components(components))


class _PerReplicaOptional:
    """``get_next_as_optional``'s value: present while the pipeline had a batch (a replica whose
    piece is empty gets an empty batch, as TF's partial-batch handling)."""

    def __init__(self, optional: Any) -> None:
        self._optional = optional

    def has_value(self, name: Any = None) -> Any:
        return self._optional.has_value(name)

    def get_value(self, name: Any = None) -> Any:
        return _per_replica(self._optional.get_value(name))


class _LocalReplicasIterator:
    """``tf.distribute.DistributedIterator`` over local replicas: ``PerReplica`` elements."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner  # a tf.data iterator over tuples of the replicas' pieces

    @property
    def element_spec(self) -> Any:
        return _per_replica_spec(self._inner.element_spec)

    def __iter__(self) -> "_LocalReplicasIterator":
        return self

    def __next__(self) -> Any:
        return _per_replica(next(self._inner))

    def get_next(self) -> Any:
        return _per_replica(self._inner.get_next())

    def get_next_as_optional(self) -> Any:
        return _PerReplicaOptional(self._inner.get_next_as_optional())

    def __fn_composite__(self) -> tuple:
        spec, components = self._inner.__fn_composite__()
        return _LocalReplicasIteratorSpec(spec.element_spec), components

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        return self._inner._fn_dataset_loop(lambda e, s: body(_per_replica(e), s), init_state, extra_test)


def _per_replica_spec(pieces_spec: tuple) -> Any:
    return nest.map_structure(lambda s: PerReplicaSpec([s] * len(pieces_spec)), pieces_spec[0])


class LocalReplicasDataset(DistributedDataset):
    """What ``experimental_distribute_dataset`` returns for several local replicas."""

    def __init__(
        self, dataset: Any, strategy: Any, replicas: int, from_function: bool = False, per_replica: bool = False
    ) -> None:
        tupled: Any
        if per_replica:  # ``dataset``: one pipeline per replica
            tupled = _ReplicaPipelinesDataset(list(dataset))
        elif from_function:
            tupled = _ConsecutiveDataset(dataset, replicas)
        else:
            tupled = _ReplicaPiecesDataset(dataset, replicas)
        super().__init__(tupled, strategy)

    @property
    def element_spec(self) -> Any:
        return _per_replica_spec(self._dataset.element_spec)

    def __iter__(self) -> Any:
        return _LocalReplicasIterator(iter(self._dataset))

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        return self._dataset._fn_dataset_loop(lambda e, s: body(_per_replica(e), s), init_state, extra_test)

    def reduce(self, initial_state: Any, reduce_fn: Callable) -> Any:
        return self._dataset.reduce(initial_state, lambda s, e: reduce_fn(s, _per_replica(e)))
