"""Dataset transformations (TF's ``MapDataset``, ``FilterDataset``, ``BatchDataset``, ...) and
``Dataset.reduce``. User functions given to ``map``/``filter``/``reduce`` are traced into graphs
once (with AutoGraph), as TF does: Python side effects in them run once, ``fn.print`` runs per
element; the traced graph then runs on each element's eager tensors."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator as PyIterator, List, Optional, Tuple

import numpy as np

from fn import _core, errors
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._data import error_text, registry, structure
from fn._data.dataset_ops import INFINITE, UNKNOWN, Dataset, as_int, wrap_int64
from fn._data.interleave import num_parallel, parallel_map
from fn._data.sources import RangeDataset, TensorDataset, TensorSliceDataset, _row_maker
from fn._data.traced_functions import (
    SKIPPED,
    TracedFunction,
    dataset_function,
    plain_dicts,
    skipping,
    to_output,
    traced_predicate,
)
from fn._ragged import RaggedTensor, RaggedTensorSpec
from fn._ragged._conversion import from_tensor as ragged_from_tensor
from fn._sparse.sparse_tensor import SparseTensorSpec, SparseTensor
from fn._autograph import operators as autograph
from fn._function.function import Function
from fn._ragged._array_ops import _concat_rows
from fn.dtypes import as_dtype, int64


# ---------------------------------------------------------------- one input


class _UnaryDataset(Dataset):
    def __init__(self, input_dataset: Dataset, element_spec: Any, tensors: Any = ()) -> None:
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a fn.data.Dataset, got {input_dataset!r}.")
        super().__init__((input_dataset,), element_spec, tensors)

    @property
    def _input(self) -> Dataset:
        return self._inputs[0]

    def _cardinality(self) -> int:
        return self._input._cardinality()


@registry.register
class MapDataset(_UnaryDataset):
    """``Dataset.map``; with ``num_parallel_calls`` the function runs on a thread pool (results
    in order)."""

    _type_name = "_MapDataset"

    def __init__(
        self, input_dataset: Dataset, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None
    ) -> None:
        self._func = TracedFunction(map_func, input_dataset.element_spec, "Dataset_map")
        self._parallel = num_parallel(num_parallel_calls, "num_parallel_calls")
        if self._parallel is not None:
            self._type_name = "_ParallelMapDataset"
        super().__init__(input_dataset, self._func.output_spec)

    def _elements(self) -> PyIterator[Any]:
        f: Callable[[Any], Any] = self._func
        if self._skip_errors:
            f = skipping(f)
        if self._parallel is not None and self._parallel > 1:
            out: PyIterator[Any] = parallel_map(self._input._elements(), f, self._parallel)
        else:
            out = map(f, self._input._elements())
        for e in out:
            if e is not SKIPPED:
                yield e


def batched_cardinality(c: int, n: int, drop_remainder: bool) -> int:
    """The number of batches of ``n`` from ``c`` elements (unknown and infinite stay so)."""
    if c < 0:
        return c
    return c // n if drop_remainder else -(-c // n)


@registry.register
class FilterDataset(_UnaryDataset):
    """``Dataset.filter``."""

    _type_name = "_FilterDataset"

    def __init__(self, input_dataset: Dataset, predicate: Callable) -> None:
        self._func = traced_predicate(predicate, input_dataset.element_spec, "Dataset_filter")
        super().__init__(input_dataset, input_dataset.element_spec)

    def _elements(self) -> PyIterator[Any]:
        f: Callable[[Any], Any] = self._func
        if self._skip_errors:
            f = skipping(f)
        for e in self._input._elements():
            keep = f(e)
            if keep is not SKIPPED and bool(keep):
                yield e

    def _cardinality(self) -> int:
        return UNKNOWN


def _shape_text(shape: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _stack(tensors: List[Any], component: int) -> Any:
    # One .numpy() per row and one np.array over them: this runs for every row of every batch.
    arrays = [t.numpy() for t in tensors]
    dtype = tensors[0].dtype
    first = np.shape(arrays[0])
    if dtype.name != "string":
        try:
            arr = np.array(arrays)
        except ValueError:  # rows of different shapes
            arr = None
        if arr is not None and arr.shape[1:] == first and arr.dtype == np.asarray(arrays[0]).dtype:
            return _core.to_eager(arr, dtype)
    for j, a in enumerate(arrays):
        if np.shape(a) != first:
            err = errors.InvalidArgumentError(
                None,
                None,
                f"Cannot batch tensors with different shapes in component {component}. First "
                f"element had shape {_shape_text(tensors[0].shape)} and element {j} had shape {_shape_text(tensors[j].shape)}.",
            )
            if np.size(a) != np.size(arrays[0]):  # TF's fused map + batch words it its own way
                err._fn_map_and_batch = (  # type: ignore[attr-defined]
                    "Cannot add tensor to the batch: number of elements does not match. Shapes are: "
                    f"[tensor]: {_shape_text(tensors[j].shape)}, [batch]: {_shape_text(tensors[0].shape)}"
                )
            raise err
    if dtype.name == "string":
        arr = np.empty((len(arrays),) + first, dtype=object)
        for j, a in enumerate(arrays):
            arr[j] = a
    else:
        arr = np.stack([np.asarray(a) for a in arrays])
    return _core.to_eager(arr, dtype)


def _batch_component(items: List[Any], spec: Any, component: int) -> Any:
    """One component of a batch: dense rows stacked; ragged rows (tensors of a RaggedTensorSpec of
    ragged_rank 0, or RaggedTensors) one RaggedTensor ragged once more; SparseTensors one
    SparseTensor whose dense shape is the largest of each dimension (TF's batch of each)."""
    if isinstance(spec, RaggedTensorSpec):
        split_np = spec.row_splits_dtype.as_numpy_dtype
        if all(isinstance(t, RaggedTensor) for t in items):
            values = _concat_rows(items)
            lengths = [int(t.nrows()) for t in items]
        else:
            arrays = [np.asarray(t.numpy()) for t in items]
            if any(a.ndim == 0 or a.shape[1:] != arrays[0].shape[1:] for a in arrays):
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot batch ragged rows with different inner shapes in component {component}."
                )
            values = _core.to_eager(np.concatenate(arrays), items[0].dtype)
            lengths = [a.shape[0] for a in arrays]
        out = RaggedTensor.from_row_lengths(values, _core.to_eager(np.asarray(lengths, split_np)), validate=False)
        out._set_shape(TensorShape([len(items)]).concatenate(spec.shape))  # the spec's uniform dims, as TF
        return out
    if isinstance(spec, SparseTensorSpec):
        return _batch_sparse(items)
    return _stack(items, component)


def _batch_sparse(items: List[Any]) -> Any:
    shapes = [np.asarray(t.dense_shape.numpy()) for t in items]
    if len({s.shape for s in shapes}) > 1:
        raise errors.InvalidArgumentError(None, None, "Cannot batch SparseTensors of different ranks.")
    indices, values = [], []
    for j, t in enumerate(items):
        idx = np.asarray(t.indices.numpy())
        indices.append(np.concatenate([np.full((idx.shape[0], 1), j, np.int64), idx], axis=1))
        values.append(np.asarray(t.values.numpy()))
    dense_shape = np.concatenate([[len(items)], np.max(np.stack(shapes), axis=0)]).astype(np.int64)
    vals = (
        np.concatenate(values)
        if items[0].dtype.name != "string"
        else np.array(sum((list(v) for v in values), []), object)
    )
    return SparseTensor(
        _core.to_eager(np.concatenate(indices).astype(np.int64), None),
        _core.to_eager(vals, items[0].dtype),
        _core.to_eager(dense_shape, None),
    )


@registry.register
class DenseToRaggedDataset(_UnaryDataset):
    """The elements of ``input_dataset`` whose tensors of partly unknown shape are ragged, with
    ragged_rank the last unknown dimension (0: a ragged row, still a dense tensor): what
    ``ragged_batch`` batches (TF's _DenseToRaggedDataset)."""

    _type_name = "_DenseToRaggedDataset"

    def __init__(self, input_dataset: Dataset, row_splits_dtype: Any = None) -> None:
        self._splits_dtype = as_dtype(row_splits_dtype) if row_splits_dtype is not None else int64

        def to_ragged(s: Any) -> Any:
            if not isinstance(s, TensorSpec) or s.shape.rank is None or s.shape.is_fully_defined():
                return s
            k = max(i for i, d in enumerate(s.shape.as_list()) if d is None)
            return RaggedTensorSpec(s.shape, s.dtype, k, self._splits_dtype)

        spec = structure.map_specs(to_ragged, lambda e: e, input_dataset.element_spec)
        self._leaf_specs = structure.flatten(spec)
        super().__init__(input_dataset, spec)

    def _elements(self) -> PyIterator[Any]:
        for e in self._input._elements():
            flat = structure.flatten(e)
            out = [
                ragged_from_tensor(v, None, None, s.ragged_rank, as_dtype(self._splits_dtype))
                if isinstance(s, RaggedTensorSpec) and s.ragged_rank > 0 and not isinstance(v, RaggedTensor)
                else v
                for v, s in zip(flat, self._leaf_specs)
            ]
            yield structure.pack(self._element_spec, out)


@registry.register
class BatchDataset(_UnaryDataset):
    """``Dataset.batch``: each component gets a leading batch dimension (``None`` unless
    ``drop_remainder``)."""

    _type_name = "_BatchDataset"

    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        n = as_int(batch_size, "batch_size")
        if n <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self._n, self._drop = n, bool(drop_remainder)
        spec = structure.batched_spec(input_dataset.element_spec, n if self._drop else None)
        self._leaf_specs = structure.flatten(input_dataset.element_spec)
        super().__init__(input_dataset, spec)

    def _elements(self) -> PyIterator[Any]:
        it = self._input._elements()
        while True:
            batch = list(itertools.islice(it, self._n))
            if not batch or (self._drop and len(batch) < self._n):
                return
            try:
                out = _make_batch(batch, self._leaf_specs, self._element_spec)
            except errors.InvalidArgumentError as e:
                text = getattr(e, "_fn_map_and_batch", None)
                if text is None or not isinstance(self._input, MapDataset):
                    raise
                raise errors.InvalidArgumentError(None, None, text) from None  # TF's MapAndBatch
            yield out

    def _cardinality(self) -> int:
        return batched_cardinality(self._input._cardinality(), self._n, self._drop)


def _make_batch(batch: List[Any], leaf_specs: List[Any], spec: Any) -> Any:
    if len(leaf_specs) == 1 and type(spec) is TensorSpec:  # elements are single tensors
        return _batch_component(batch, leaf_specs[0], 0)
    flats = [structure.flatten(e) for e in batch]
    cols = [_batch_component([f[i] for f in flats], s, i) for i, s in enumerate(leaf_specs)]
    return structure.pack(spec, cols)


@registry.register
class RebatchDataset(_UnaryDataset):
    """``Dataset.rebatch``: the rows of the input's batches cut again into batches of
    ``batch_size`` (one size, or sizes taken in turn), as ``unbatch().batch(...)`` would. TF loops
    forever on a size of 0; fn refuses it."""

    _type_name = "_RebatchDatasetV2"

    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        given = batch_size.numpy() if _core.is_tensor(batch_size) else batch_size
        sizes = np.asarray(given).reshape(-1)
        if sizes.size == 0 or sizes.dtype.kind not in "iu" or (sizes <= 0).any():
            raise errors.InvalidArgumentError(None, None, f"batch_size must be positive integers; got {given!r}")
        self._sizes, self._drop = [int(n) for n in sizes], bool(drop_remainder)
        self._rows = UnbatchDataset(input_dataset)
        lead = self._sizes[0] if self._drop and len(set(self._sizes)) == 1 else None
        self._leaf_specs = structure.flatten(self._rows.element_spec)
        super().__init__(input_dataset, structure.batched_spec(self._rows.element_spec, lead))

    def _elements(self) -> PyIterator[Any]:
        it = self._rows._elements()
        for n in itertools.cycle(self._sizes):
            batch = list(itertools.islice(it, n))
            if not batch or (self._drop and len(batch) < n):
                return
            yield _make_batch(batch, self._leaf_specs, self._element_spec)

    def _cardinality(self) -> int:
        return UNKNOWN


@registry.register
class UnbatchDataset(_UnaryDataset):
    """``Dataset.unbatch``."""

    _type_name = "_UnbatchDataset"

    def __init__(self, input_dataset: Dataset) -> None:
        specs = structure.flatten(input_dataset.element_spec)
        if any(s.shape.rank == 0 for s in specs):
            raise ValueError("Unbatching a dataset is only supported for rank >= 1")
        spec = structure.unbatched_spec(input_dataset.element_spec)
        super().__init__(input_dataset, spec)

    def _elements(self) -> PyIterator[Any]:
        for e in self._input._elements():
            yield from TensorSliceDatasetRows(e, self._element_spec)

    def _cardinality(self) -> int:
        return UNKNOWN


def TensorSliceDatasetRows(element: Any, spec: Any) -> PyIterator[Any]:
    flat = structure.flatten(element)
    n = flat[0].shape[0]
    for t in flat[1:]:
        if t.shape[0] != n:
            raise errors.InvalidArgumentError(
                None, None, "Input element must have the same batch size in each component."
            )
    rows = [_row_maker(t) for t in flat]
    for i in range(n):
        yield structure.pack(spec, [r(i) for r in rows])


def _init_count(ds: "_CountDataset", input_dataset: Dataset, count: Any) -> None:
    """``count`` of repeat/take/skip; a graph tensor (in a flat_map/interleave function) is
    read when the graph runs and rebuilds the dataset."""
    if _core.is_tensor(count) and not count._is_eager:
        _UnaryDataset.__init__(ds, input_dataset, input_dataset.element_spec, [count])
        ds._count = 0
        return
    ds._count = as_int(count, "count")
    _UnaryDataset.__init__(ds, input_dataset, input_dataset.element_spec)


class _CountDataset(_UnaryDataset):
    _count: int

    def _on_rebuilt(self) -> None:
        if self._tensors:
            self._count = as_int(self._tensors[0], "count")


@registry.register
class RepeatDataset(_CountDataset):
    """``Dataset.repeat``."""

    _type_name = "_RepeatDataset"

    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        _init_count(self, input_dataset, -1 if count is None else count)

    def _elements(self) -> PyIterator[Any]:
        return self._epochs(0, 0)

    def _elements_from(self, n: int) -> PyIterator[Any]:
        c = self._input._cardinality()
        if c <= 0 or not isinstance(self._input, (RangeDataset, TensorDataset, TensorSliceDataset)):
            return super()._elements_from(n)  # epochs may differ (shuffles): produce them
        return self._epochs(*divmod(n, c))  # whole epochs of a source skipped by counting

    def _epochs(self, epoch: int, skip: int) -> PyIterator[Any]:
        while self._count < 0 or epoch < self._count:
            any_element = False
            try:
                for e in self._input._elements_from(skip) if skip else self._input._elements():
                    any_element = True
                    yield e
            except errors.OpError as err:
                error_text.note(err, self, epoch)
                raise
            if not any_element:
                return
            skip = 0
            epoch += 1

    def _cardinality(self) -> int:
        c = self._input._cardinality()
        if self._count == 0 or c == 0:
            return 0
        if self._count < 0:
            return INFINITE if c != UNKNOWN else UNKNOWN
        return wrap_int64(c * self._count) if c >= 0 else c  # int64, as TF's kernel


@registry.register
class TakeDataset(_CountDataset):
    """``Dataset.take``."""

    _type_name = "_TakeDataset"

    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        _init_count(self, input_dataset, count)

    def _elements(self) -> PyIterator[Any]:
        it = self._input._elements()
        return it if self._count < 0 else itertools.islice(it, self._count)

    def _cardinality(self) -> int:
        c = self._input._cardinality()
        if self._count < 0:
            return c
        if c == INFINITE:
            return self._count
        return c if c == UNKNOWN else min(c, self._count)


@registry.register
class SkipDataset(_CountDataset):
    """``Dataset.skip``."""

    _type_name = "_SkipDataset"

    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        _init_count(self, input_dataset, count)

    def _elements(self) -> PyIterator[Any]:
        if self._count < 0:
            return iter(())
        return self._input._elements_from(self._count)

    def _cardinality(self) -> int:
        c = self._input._cardinality()
        if self._count < 0:
            return 0 if c != INFINITE else INFINITE
        return c if c < 0 else max(0, c - self._count)


@registry.register
class PrefetchDataset(_UnaryDataset):
    """``Dataset.prefetch`` (synchronous in fn: the same elements)."""

    _type_name = "_PrefetchDataset"

    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset, input_dataset.element_spec)

    def _elements(self) -> PyIterator[Any]:
        return self._input._elements()


@registry.register
class OptionsDataset(_UnaryDataset):
    """``Dataset.with_options``: the same elements, with options."""

    _type_name = "_OptionsDataset"

    def __init__(self, input_dataset: Dataset, options: Any) -> None:
        super().__init__(input_dataset, input_dataset.element_spec)
        self._own_options = options

    def _elements(self) -> PyIterator[Any]:
        return self._input._elements()


@registry.register
class CacheDataset(_UnaryDataset):
    """``Dataset.cache`` (in memory)."""

    _type_name = "CacheDataset"

    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset, input_dataset.element_spec)
        self._cache: List[Optional[List[Any]]] = [None]

    def _elements(self) -> PyIterator[Any]:
        if self._cache[0] is not None:
            yield from self._cache[0]
            return
        seen = []
        for e in self._input._elements():
            seen.append(e)
            yield e
        self._cache[0] = seen


@registry.register
class FlatMapDataset(_UnaryDataset):
    """``Dataset.flat_map``: ``map_func`` (which returns a dataset) is traced once for the
    element spec of its result, and called eagerly on each element."""

    _type_name = "_FlatMapDataset"

    def __init__(self, input_dataset: Dataset, map_func: Callable) -> None:
        self._call, spec = dataset_function(map_func, input_dataset.element_spec, "Dataset_flat_map")
        super().__init__(input_dataset, spec)

    def _elements(self) -> PyIterator[Any]:
        for i, e in enumerate(self._input._elements()):
            yield from error_text.inner_elements(self, i, self._call(e))

    def _cardinality(self) -> int:
        return UNKNOWN


# ---------------------------------------------------------------- several inputs


@registry.register
class ZipDataset(Dataset):
    """``Dataset.zip`` (and ``enumerate``)."""

    _type_name = "_ZipDataset"

    def __init__(self, datasets: Any) -> None:
        if isinstance(datasets, list):
            datasets = tuple(datasets)
        flat = structure.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError(
                "Invalid `datasets`. `datasets` is expected to be a (nested) structure of `fn.data.Dataset` objects."
            )
        self._structure = datasets
        super().__init__(flat, structure.pack(datasets, [d.element_spec for d in flat]))

    def _elements(self) -> PyIterator[Any]:
        its = [d._elements() for d in self._inputs]
        for items in zip(*its):
            flat: List[Any] = []
            for x in items:
                flat.extend(structure.flatten(x))
            yield structure.pack(self._element_spec, flat)

    def _cardinality(self) -> int:
        cs = [d._cardinality() for d in self._inputs]
        finite = [c for c in cs if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in cs else INFINITE


@registry.register
class ConcatenateDataset(Dataset):
    """``Dataset.concatenate``."""

    _type_name = "_ConcatenateDataset"

    def __init__(self, first: Dataset, second: Dataset) -> None:
        a, b = first.element_spec, second.element_spec
        spec = structure._spec_supertype(a, b)
        if spec is None:
            raise TypeError(
                f"Incompatible dataset elements:\n  {structure.spec_text(a)} vs.   {structure.spec_text(b)}"
            )
        super().__init__((first, second), spec)

    def _elements(self) -> PyIterator[Any]:
        yield from self._inputs[0]._elements()
        yield from self._inputs[1]._elements()

    def _cardinality(self) -> int:
        a, b = (d._cardinality() for d in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else wrap_int64(a + b)


# ---------------------------------------------------------------- reduce


def _check_state(initial: Any, new: Any) -> None:
    if not structure.same_structure(initial, new):
        raise TypeError(
            "The structure of the new state must match the structure of the initial state. "
            f"Expected {initial!r}; got {new!r}."
        )
    want = [t.dtype for t in structure.flatten(initial)]
    got = [t.dtype for t in structure.flatten(new)]
    if want != got:
        raise TypeError(
            "The element types for the new state must match the initial state. Expected "
            f"{tuple(want)}; got {tuple(got)}."
        )


@registry.register
def reduce_dataset(dataset: Dataset, initial_state: Any, reduce_func: Callable) -> Any:
    """``Dataset.reduce``: eagerly a Python loop over a traced ``reduce_func`` (retraced if the
    state's shapes change); inside a Function one graph loop (``_fn_dataset_loop``)."""
    initial = structure.normalize_element(initial_state)

    def step(state: Any, element: Any) -> Any:
        # TF hands reduce_func structures it rebuilt from the flat tensors: the function may
        # update them in place (the data guide's `counts['class_0'] += ...`)
        state = structure.pack(state, list(structure.flatten(state)))
        element = structure.pack(element, list(structure.flatten(element)))
        return to_output(autograph.converted_call(reduce_func, (state, element)))

    if _core.executing_eagerly():
        f = Function(step, name="Dataset_reduce", autograph=False)
        state = initial
        for e in dataset._elements():
            new = f(state, plain_dicts(e))
            _check_state(initial, new)
            state = new
        return state

    def body(element: Any, flat_state: Tuple[Any, ...]) -> Tuple[Any, ...]:
        new = step(structure.pack(initial, list(flat_state)), element)
        _check_state(initial, new)
        return tuple(structure.flatten(new))

    out = dataset._fn_dataset_loop(body, tuple(structure.flatten(initial)))
    return structure.pack(initial, list(out))
