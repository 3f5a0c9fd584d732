"""Distributed values and datasets (TF's ``values.py`` / ``input_lib.py``).

fn runs one replica per process (a worker is an MPI rank or the lone local process), so a
worker holds one value per ``DistributedValues``; ``strategy.run`` returns plain tensors (as TF
does for a single local replica) and ``PerReplica`` appears only when a user builds one. A
distributed dataset is the dataset this worker reads (its shard of each global batch) and its
iterator is an ``fn.data.Iterator`` (so it can be passed to a Function and advanced there).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from fn import _core
from fn._data import structure
from fn._data.dataset_ops import INFINITE, UNKNOWN
from fn._data.iterator_ops import Iterator as _DataIterator, SymbolicIterator, eager_loop, get_next_op
from fn._data.structure import DatasetSpec, IteratorSpec, spec_text as structure_text
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
        self._cardinality = dataset._cardinality()  # INFINITE: no per-step has-value all-reduce
        # As TF: across workers each element's tensors are PerReplica values (one local replica).
        self._wrap = bool(strategy.extended._in_multi_worker_mode())

    def _wrapped(self, element: Any) -> Any:
        if not self._wrap or not _core.executing_eagerly():
            return element
        return nest.map_structure(lambda t: PerReplica([t]), element)

    def __next__(self) -> Any:
        if self._in_graph():
            return self._symbolic().get_next()
        if self._agreed():
            return self._next_agreed(StopIteration)
        return self._wrapped(super().__next__())

    def get_next(self) -> Any:
        if self._in_graph():
            return self._symbolic().get_next()
        if self._agreed():
            return self._next_agreed(None)
        return self._wrapped(super().get_next())

    def _in_graph(self) -> bool:
        """Used inside a Function without being its argument (captured by a closure): the graph
        reads it as an argument's symbolic iterator does (agreeing across workers)."""
        return self._wrap and not _core.executing_eagerly()

    def _symbolic(self) -> "_SymbolicDistributedIterator":
        return _SymbolicDistributedIterator(
            _core.make_variant(self), self._element_spec, self._strategy, self._cardinality
        )

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in iterator``: eagerly ``next()`` until every worker's data ended;
        inside a Function TF's iterator loop (``get_next_as_optional`` each step)."""
        if self._in_graph():
            return self._symbolic()._fn_dataset_loop(body, init_state, extra_test)
        if self._agreed():
            return eager_loop(self, body, init_state, extra_test)
        return super()._fn_dataset_loop(body, init_state, extra_test)

    def _agreed(self) -> bool:
        """TF's partial-batch handling (multi-worker, not INFINITE): every worker's next element
        comes after one all-reduce of the has-value count, so all workers stop together and one
        whose data ended gets an empty batch meanwhile (TF's ``_enable_get_next_as_optional``)."""
        return self._wrap and self._cardinality != INFINITE and _core.executing_eagerly()

    def _next_agreed(self, end: Any) -> Any:
        from fn._data.iterator_ops import _end_of_sequence
        from fn._ops.array_ops import cast
        from fn.dtypes import int64

        local = super().get_next_as_optional()
        has = bool(local.has_value().numpy())
        count = self._strategy.reduce("SUM", cast(local.has_value(), int64), axis=None)
        if not bool(count.numpy() > 0):
            raise end() if end is not None else _end_of_sequence()
        return self._wrapped(local.get_value() if has else _dummy(self._element_spec))

    def get_next_as_optional(self) -> Any:
        """``DistributedIterator.get_next_as_optional``: across workers (as TF's input_lib), an
        Optional that has a value while any worker has one (all workers stop together); a worker
        whose data has ended gets an empty batch of the element's structure."""
        if self._in_graph():
            return self._symbolic().get_next_as_optional()
        if self._wrap and self._cardinality == INFINITE:
            return _local_optional(super().get_next(), self._wrapped)
        local = super().get_next_as_optional()
        if not self._wrap:
            return local
        return _any_worker_optional(self._strategy, local, self._element_spec, self._wrapped)

    def __fn_composite__(self) -> tuple:
        spec, components = super().__fn_composite__()
        if self._wrap:  # inside a Function its get_next_as_optional still agrees across workers
            spec = DistributedIteratorSpec(spec.element_spec, self._strategy, self._cardinality)
        return spec, components

    def __repr__(self) -> str:
        return f"<fn.distribute.DistributedIterator object at 0x{id(self):x}>"


def _local_optional(value: Any, wrap: Callable[[Any], Any]) -> Any:
    """TF's ``get_next_as_optional`` for an INFINITE dataset: ``Optional.from_value(get_next())``,
    no all-reduce of the has-value count (no worker's data ends, so none gets a partial batch)."""
    from fn._data.optional import Optional as _Optional
    from fn._ops.array_ops import constant

    return _Optional(constant(True), wrap(value), structure.spec_from_value(value))


def _any_worker_optional(strategy: Any, local: Any, element_spec: Any, wrap: Callable[[Any], Any]) -> Any:
    """TF's ``_calculate_replicas_with_values`` + ``_get_value_or_dummy``: the number of workers
    with a value (one all-reduce) decides whether the Optional has one; a worker without a value
    contributes a dummy (TF's ``_dummy_tensor_fn``: unknown dimensions 0, and the first dimension
    0 when the shape is fully known)."""
    from fn._data.optional import Optional as _Optional
    from fn._ops.array_ops import cast
    from fn._ops.control_flow_ops import cond
    from fn._ops.math_ops import greater
    from fn.dtypes import int64

    count = strategy.reduce("SUM", cast(local.has_value(), int64), axis=None)
    if _core.executing_eagerly():
        if not bool(count.numpy() > 0):
            return _Optional.empty(element_spec)
        value = local.get_value() if bool(local.has_value().numpy()) else _dummy(element_spec)
    else:
        value = cond(local.has_value(), local.get_value, lambda: _dummy(element_spec))
    return _Optional(greater(count, 0), wrap(value), structure.spec_from_value(value))


def _dummy(element_spec: Any) -> Any:
    from fn._ops.array_ops import zeros

    def dummy(spec: Any) -> Any:
        dims = [0 if d is None else d for d in spec.shape.as_list()] if spec.shape.rank else []
        if dims and spec.shape.is_fully_defined():
            dims[0] = 0
        return zeros(dims, spec.dtype)

    return structure.pack(element_spec, [dummy(s) for s in structure.flatten(element_spec)])


class _DistributedSpecMixin:
    """What TF's ``DistributedDatasetAndIteratorSpec`` adds to both distributed specs: the
    strategy they run under and the dataset's cardinality, part of the trace type."""

    _strategy: Any
    _cardinality: int

    def _same_run(self, other: Any) -> bool:
        return other._strategy is self._strategy and other._cardinality == self._cardinality

    def _covered_by(self, other: Any) -> bool:
        return other._strategy is self._strategy and other._cardinality in (self._cardinality, UNKNOWN)

    def _run_key(self) -> tuple:
        return (id(self._strategy), self._cardinality)

    def _common_supertype(self, base: Any, others: Sequence[Any]) -> Optional[Any]:
        """TF's ``DistributedDatasetAndIteratorSpec.most_specific_common_supertype``: none unless
        every other is of this kind under the same strategy (``sanity_check_type``); else the
        elements' common supertype, the cardinality kept where all agree (else UNKNOWN)."""
        if any(type(o) is not type(self) or o._strategy is not self._strategy for o in others):
            return None
        sup = base(self._element_spec).most_specific_common_supertype([base(o._element_spec) for o in others])
        if sup is None:
            return None
        same = all(o._cardinality == self._cardinality for o in others)
        return type(self)(sup.element_spec, self._strategy, self._cardinality if same else UNKNOWN)


class DistributedIteratorSpec(_DistributedSpecMixin, IteratorSpec):
    """The trace type of a multi-worker ``DistributedIterator`` argument: an ``IteratorSpec`` whose
    symbolic iterator reduces ``get_next_as_optional``'s has-value across workers."""

    _label = "DistributedIteratorSpec"

    def __init__(self, element_spec: Any, strategy: Any, cardinality: int = UNKNOWN) -> None:
        super().__init__(element_spec)
        self._strategy = strategy
        self._cardinality = cardinality

    def is_subtype_of(self, other: Any) -> bool:
        return super().is_subtype_of(other) and self._covered_by(other)

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional[Any]:
        return self._common_supertype(IteratorSpec, others)

    def __eq__(self, other: Any) -> bool:
        return super().__eq__(other) and self._same_run(other)

    def __hash__(self) -> int:
        return hash((super().__hash__(),) + self._run_key())

    def _fn_from_components(self, components: List[Any]) -> Any:
        return _SymbolicDistributedIterator(components[0], self._element_spec, self._strategy, self._cardinality)

    def __repr__(self) -> str:
        return f"DistributedIteratorSpec({structure_text(self._element_spec)},)"


class DistributedDatasetSpec(_DistributedSpecMixin, DatasetSpec):
    """The trace type of a multi-worker ``DistributedDataset`` argument (TF's
    ``DistributedDatasetSpec``): in the graph a ``DistributedDataset`` whose loops and iterators
    agree across workers."""

    _label = "DistributedDatasetSpec"

    def __init__(self, element_spec: Any, strategy: Any, cardinality: int = UNKNOWN) -> None:
        super().__init__(element_spec)
        self._strategy = strategy
        self._cardinality = cardinality

    def is_subtype_of(self, other: Any) -> bool:
        return super().is_subtype_of(other) and self._covered_by(other)

    def most_specific_common_supertype(self, others: Sequence[Any]) -> Optional[Any]:
        return self._common_supertype(DatasetSpec, others)

    def __eq__(self, other: Any) -> bool:
        return super().__eq__(other) and self._same_run(other)

    def __hash__(self) -> int:
        return hash((super().__hash__(),) + self._run_key())

    def _fn_from_components(self, components: List[Any]) -> Any:
        return DistributedDataset(super()._fn_from_components(components), self._strategy, self._cardinality)

    def __repr__(self) -> str:
        return f"DistributedDatasetSpec({structure_text(self._element_spec)},)"


class _SymbolicDistributedIterator(SymbolicIterator):
    def __init__(self, handle: Any, element_spec: Any, strategy: Any, cardinality: int) -> None:
        super().__init__(handle, element_spec)
        self._strategy = strategy
        self._cardinality = cardinality

    def get_next_as_optional(self) -> Any:
        if self._cardinality == INFINITE:
            return _local_optional(get_next_op(self._handle, self._element_spec), lambda v: v)
        local = super().get_next_as_optional()
        return _any_worker_optional(self._strategy, local, self._element_spec, lambda v: v)

    def __next__(self) -> Any:
        """TF's ``DistributedIterator.get_next`` in a graph (input_lib): while any worker has data,
        this worker's element or an empty batch; when none has, every worker reads its ended
        iterator (``IteratorGetNext``), so all fail with ``OutOfRangeError`` at the same step."""
        if self._cardinality == INFINITE:
            return get_next_op(self._handle, self._element_spec)
        from fn._ops.control_flow_ops import cond

        opt = self.get_next_as_optional()
        return cond(opt.has_value(), opt.get_value, lambda: get_next_op(self._handle, self._element_spec))

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in iterator`` in a Function: TF's ``_tf_iterator_for_stmt``."""
        return iterator_loop(self, body, init_state, extra_test)


def iterator_loop(iterator: Any, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
    """TF's ``_tf_iterator_for_stmt`` over a multi-worker iterator in a graph: one while loop whose
    body takes ``get_next_as_optional()`` (agreed across workers) and runs ``body`` when it has a
    value; it stops when no worker has data, or ``extra_test(state)`` (break/return) is false.
    Loop variables whose shape changes in the body are relaxed and the loop traced again (as
    fn's dataset loops)."""
    from fn._data.iterator_ops import relaxing_while_loop
    from fn._ops.control_flow_ops import cond
    from fn._ops.math_ops import logical_and

    state = tuple(init_state)
    dummy = not state  # a loop with no variables carries one (as fn's graph_loop)
    if dummy:
        state = (_core.convert_to_tensor(0),)

    def test(has: Any, *s: Any) -> Any:
        if extra_test is None:
            return has
        go = extra_test(() if dummy else tuple(s))
        return logical_and(has, go if _core.is_tensor(go) else _core.convert_to_tensor(bool(go)))

    def step(has: Any, *s: Any) -> tuple:
        opt = iterator.get_next_as_optional()

        def run() -> tuple:
            out = body(opt.get_value(), () if dummy else tuple(s))
            return tuple(s) if dummy else tuple(out)

        new = cond(opt.has_value(), run, lambda: tuple(s))
        new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        return (opt.has_value(),) + new

    out = relaxing_while_loop(test, step, (_core.convert_to_tensor(True),) + state, leading=1)
    return () if dummy else tuple(out[1:])


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
        if not self._multi_worker():
            return iter(self._dataset)
        # Inside a Function (TF: a DistributedIterator made in the graph): it agrees across workers.
        from fn._data.iterator_ops import make_iterator_op

        handle = make_iterator_op(self._dataset)
        return _SymbolicDistributedIterator(handle, self._dataset.element_spec, self._strategy, self._cardinality)

    def _multi_worker(self) -> bool:
        return bool(self._strategy.extended._in_multi_worker_mode())

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in dist_dataset``. Across workers, TF's ``_tf_distributed_iterable_for_stmt``:
        ``reduce`` over a fresh iterator, every worker stepping until none has data (a worker whose
        data ended gets empty batches); ``break``/``return`` in the loop raise as in TF."""
        if not self._multi_worker():
            return self._dataset._fn_dataset_loop(body, init_state, extra_test)
        if extra_test is not None:
            raise NotImplementedError(
                "break and return statements are not yet supported in for ... in distributed input loops."
            )
        if _core.executing_eagerly():
            return eager_loop(iter(self), body, init_state)
        return iterator_loop(iter(self), body, init_state)

    def __fn_composite__(self) -> tuple:
        spec, components = self._dataset.__fn_composite__()
        if self._multi_worker():  # inside a Function it is still a distributed dataset (TF's DistributedDatasetSpec)
            spec = DistributedDatasetSpec(spec.element_spec, self._strategy, self._cardinality)
        return spec, components

    def reduce(self, initial_state: Any, reduce_fn: Callable) -> Any:
        """Folds ``reduce_fn(state, element)`` over this worker's elements (``DistributedDataset.reduce``;
        across workers until no worker has data, also inside a Function)."""
        if not _core.executing_eagerly():
            if not self._multi_worker():
                return self._dataset.reduce(initial_state, reduce_fn)
            flat = [_core.convert_to_tensor(t) for t in nest.flatten(initial_state)]

            def body(element: Any, state: tuple) -> tuple:
                return tuple(nest.flatten(reduce_fn(nest.pack_sequence_as(initial_state, list(state)), element)))

            out = iterator_loop(iter(self), body, tuple(flat))
            return nest.pack_sequence_as(initial_state, list(out))
        state = initial_state
        for element in self:
            state = reduce_fn(state, element)
        return state

    def __repr__(self) -> str:
        return f"<fn.distribute.{type(self).__name__} object at 0x{id(self):x}>"


class DistributedDatasetsFromFunction(DistributedDataset):
    """The ``DistributedDataset`` of ``distribute_datasets_from_function`` (TF's class name)."""
