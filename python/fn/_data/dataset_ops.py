"""``fn.data.Dataset`` (``tf.data.Dataset``): the base class, its methods, and datasets in graphs.

A dataset is a small Python object: its input datasets, the tensors it was built from, and
its ``element_spec``; ``_elements()`` yields the elements eagerly (nested eager tensors). The
sources live in ``sources.py``, the transformations in ``transforms.py``.

Inside a Function a dataset is a scalar variant tensor holding the Python object: an argument
is a placeholder (``_VariantDataset``), a dataset captured from outside is a captured
constant, and a dataset built inside the trace from graph tensors is rebuilt from their values
each time the graph runs (``_graph_inputs``).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any, Callable, Iterator as PyIterator, List, Optional, Sequence, Tuple

import numpy as np

from fn import _core, errors
from fn.dtypes import int32, int64
from fn._data import error_text, iterator_ops, registry, structure
from fn._data.options import Options
from fn._data.structure import DatasetSpec
from fn._tensor.composite import CompositeParts

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


def wrap_int64(n: int) -> int:
    """``n`` as TF's int64 cardinality arithmetic leaves it (two's complement past 2**63), so a
    product or sum of counts stays an int64 as ``cardinality()`` and ``len()`` need."""
    return (n + 2**63) % 2**64 - 2**63


def as_int(value: Any, what: str) -> int:
    """A count or size argument as a Python int (a Python/NumPy int or an eager int scalar)."""
    if _core.is_tensor(value):
        if not value._is_eager:
            raise TypeError(f"fn.data needs a Python or eager value for `{what}`, got a graph tensor.")
        if value.dtype not in (int32, int64) or value.shape.rank != 0:
            raise TypeError(f"`{what}` must be a scalar int32 or int64 tensor, got {value!r}")
        return int(value.numpy())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    # TF converts to an int64 tensor: its TypeError/ValueError for anything else.
    return int(_core.convert_to_tensor(value, int64).numpy())


class Dataset:
    """A sequence of elements, each a nested structure of tensors (``tf.data.Dataset``)."""

    _type_name = "Dataset"
    _skip_errors = False  # set on copies made by ignore_errors(): drop elements whose computation fails

    def __init__(self, inputs: Sequence["Dataset"], element_spec: Any, tensors: Sequence[Any] = ()) -> None:
        self._inputs: Tuple["Dataset", ...] = tuple(inputs)
        self._element_spec = element_spec
        self._tensors: List[Any] = list(tensors)  # tensor arguments (may be graph tensors)
        self._fn_id = error_text.next_id()  # TF's creation number, named in its error text

    # ------------------------------------------------------------ to implement
    def _elements(self) -> PyIterator[Any]:
        """The elements, eagerly, as nested eager tensors."""
        raise NotImplementedError

    def _elements_from(self, n: int) -> PyIterator[Any]:
        """The elements after the first ``n`` (``skip``); a range or a repeat of a source skips
        without producing them (skipping 2**62 of them must not take forever)."""
        return itertools.islice(self._elements(), n, None)

    def _cardinality(self) -> int:
        return UNKNOWN

    # ------------------------------------------------------------ properties
    @property
    def element_spec(self) -> Any:
        """The nested ``fn.TensorSpec`` of one element."""
        return self._element_spec

    def cardinality(self) -> Any:
        """Number of elements as an int64 scalar (``INFINITE`` = -1, ``UNKNOWN`` = -2)."""
        return _core.convert_to_tensor(np.int64(self._cardinality()))

    def __len__(self) -> int:
        if not _core.executing_eagerly():
            raise TypeError(
                "`fn.data.Dataset` only supports `len` in eager mode. Use `fn.data.Dataset.cardinality()` instead."
            )
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<{self._type_name} element_spec={structure.spec_text(self._element_spec)}>"

    # ------------------------------------------------------------ iteration
    def __iter__(self) -> Any:
        if _core.executing_eagerly():
            return iterator_ops.Iterator(self)
        return iterator_ops.SymbolicIterator(iterator_ops.make_iterator_op(self), self._element_spec)

    def as_numpy_iterator(self) -> "NumpyIterator":
        """An iterator of NumPy values (``tf.data.Dataset.as_numpy_iterator``)."""
        if not _core.executing_eagerly():
            raise RuntimeError("`fn.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        for s in structure.flatten(self._element_spec):
            if not s.dtype.is_numpy_compatible:
                raise TypeError(
                    f"Dataset.as_numpy_iterator() is not supported for datasets that produce "
                    f"values of type {s.dtype.name}"
                )
        return NumpyIterator(self)

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in dataset``: ``body(element, state) -> state``. Inside a Function it
        is one graph loop over a fresh iterator (its size does not grow with the data)."""
        if _core.executing_eagerly():
            return iterator_ops.eager_loop(self._elements(), body, init_state, extra_test)
        handle = iterator_ops.make_iterator_op(self)
        return iterator_ops.graph_loop(handle, self._element_spec, body, init_state, extra_test)

    # ------------------------------------------------------------ in graphs
    def __fn_composite__(self) -> tuple:
        """fn.function's composite protocol: a dataset argument is keyed by its element spec
        (``DatasetSpec``) and enters the graph as one variant tensor."""
        if not self._symbolic_tensors():
            return DatasetSpec(self._element_spec), [_core.make_variant(self)]
        return DatasetSpec(self._element_spec), [iterator_ops.dataset_handle_op(self)]

    def _fn_parts(self) -> Any:
        """fn's composite protocol for cond/while_loop: a dataset crosses a branch or a loop as
        its variant tensor (TF's Dataset is a CompositeTensor of its variant)."""
        spec, components = self.__fn_composite__()
        return CompositeParts(spec, tuple(components))

    def _fn_type_spec(self) -> Any:
        """The dataset's ``DatasetSpec`` (TF's ``_type_spec``), without building a graph node."""
        return DatasetSpec(self._element_spec)

    def _traced_functions(self) -> List[Tuple[str, Any]]:
        """The traced functions this dataset holds (``map``'s, ``filter``'s...), by attribute."""
        return sorted((k, v) for k, v in vars(self).items() if hasattr(v, "graph_captures"))

    def _all_tensors(self) -> List[Any]:
        out = list(self._tensors)
        for _, f in self._traced_functions():  # tensors of the enclosing trace they captured
            out.extend(f.graph_captures())
        for d in self._inputs:
            out.extend(d._all_tensors())
        return out

    def _symbolic_tensors(self) -> List[Any]:
        return [t for t in self._all_tensors() if _core.is_tensor(t) and not t._is_eager]

    def _graph_inputs(self) -> Tuple[Callable[..., "Dataset"], List[Any]]:
        """How the running graph gets this dataset: a function of the variant/tensor inputs that
        returns the (eager) dataset, and those inputs."""
        if not self._symbolic_tensors():
            return _core.variant_value, [_core.make_variant(self)]
        inputs = self._all_tensors()
        return (lambda *values: self._rebuilt(iter(values))), inputs

    def _rebuilt(self, values: PyIterator[Any]) -> "Dataset":
        """A copy of this dataset with its tensors (and its inputs' tensors) replaced by
        ``values``, in ``_all_tensors`` order."""
        new = copy.copy(self)
        new._tensors = [next(values) for _ in self._tensors]
        for name, f in self._traced_functions():
            if f.graph_captures():
                setattr(new, name, f.with_captures(values))
        new._inputs = tuple(d._rebuilt(values) for d in self._inputs)
        new._on_rebuilt()
        return new

    def _on_rebuilt(self) -> None:
        """Hook for datasets that derive state from their tensors."""

    # ------------------------------------------------------------ sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """The slices of ``tensors`` along their first dimension (nested structures allowed)."""
        TensorSliceDataset = registry.lookup("TensorSliceDataset")
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """One element: ``tensors``."""
        TensorDataset = registry.lookup("TensorDataset")
        return TensorDataset(tensors)

    @staticmethod
    def from_generator(
        generator: Callable,
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """The elements yielded by ``generator()`` (called afresh for each iteration), converted
        and checked against ``output_signature`` (or ``output_types``/``output_shapes``)."""
        GeneratorDataset = registry.lookup("GeneratorDataset")
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: Optional[str] = None) -> "Dataset":
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars (or ``output_type``)."""
        RangeDataset = registry.lookup("RangeDataset")
        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: Optional[str] = None) -> "Dataset":
        """Elements of several datasets together: ``zip((a, b))``, ``zip(a, b)`` or ``zip({'x': a})``."""
        ZipDataset = registry.lookup("ZipDataset")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return ZipDataset(datasets)

    # ------------------------------------------------------------ transformations
    def map(
        self, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None, name: Optional[str] = None
    ) -> "Dataset":
        """``map_func`` applied to each element (traced once into a graph, as TF does; a tuple
        element is passed as positional arguments); ``num_parallel_calls`` runs it on threads."""
        MapDataset = registry.lookup("MapDataset")
        return MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        """The elements for which ``predicate`` (a scalar bool) is True."""
        FilterDataset = registry.lookup("FilterDataset")
        return FilterDataset(self, predicate)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = None, name: Optional[str] = None) -> "Dataset":
        """``start``, ``start + step``, ... forever (int64 unless ``dtype``)."""
        CounterDataset = registry.lookup("CounterDataset")
        return CounterDataset(start, step, int64 if dtype is None else dtype)

    @staticmethod
    def random(
        seed: Optional[int] = None, rerandomize_each_iteration: Optional[bool] = None, name: Optional[str] = None
    ) -> "Dataset":
        """Endless pseudo-random int64 values (TF's stream for the same seeds)."""
        RandomDataset = registry.lookup("RandomDataset")
        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def list_files(
        file_pattern: Any, shuffle: Optional[bool] = None, seed: Optional[int] = None, name: Optional[str] = None
    ) -> "Dataset":
        """The file names matching the glob pattern(s), shuffled unless ``shuffle=False``."""
        list_files = registry.lookup("list_files")
        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: "Dataset", stop_on_empty_dataset: bool = True) -> "Dataset":
        """Elements of ``datasets[i]`` for each index ``i`` of ``choice_dataset``."""
        choose_from_datasets = registry.lookup("choose_from_datasets")
        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets: Any,
        weights: Any = None,
        seed: Optional[int] = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: Any = None,
    ) -> "Dataset":
        """Elements drawn at random from ``datasets`` with probabilities ``weights``."""
        sample_from_datasets = registry.lookup("sample_from_datasets")
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    @staticmethod
    def load(
        path: str, element_spec: Any = None, compression: Any = None, reader_func: Any = None, wait: bool = False
    ) -> "Dataset":
        """A dataset saved by ``Dataset.save`` (fn's format)."""
        LoadDataset = registry.lookup("LoadDataset")
        return LoadDataset(path, element_spec)

    def save(self, path: str, compression: Any = None, shard_func: Any = None, checkpoint_args: Any = None) -> None:
        """Writes the elements under ``path`` (fn's format; read back with ``Dataset.load``)."""
        save = registry.lookup("save")
        save(self, path)

    def snapshot(
        self,
        path: str,
        compression: Any = "AUTO",
        reader_func: Any = None,
        shard_func: Any = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """The same elements, written under ``path`` by the first full pass and read from there after."""
        SnapshotDataset = registry.lookup("SnapshotDataset")
        return SnapshotDataset(self, path)

    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """Consecutive elements stacked into batches of ``batch_size``."""
        BatchDataset = registry.lookup("BatchDataset")
        return BatchDataset(self, batch_size, drop_remainder)

    def ragged_batch(
        self, batch_size: Any, drop_remainder: bool = False, row_splits_dtype: Any = None, name: Optional[str] = None
    ) -> "Dataset":
        """``Dataset.ragged_batch``: batches whose components of varying shape are RaggedTensors
        (ragged from the last dimension of unknown size on; TF's dense-to-ragged batching)."""
        BatchDataset = registry.lookup("BatchDataset")
        DenseToRaggedDataset = registry.lookup("DenseToRaggedDataset")
        return BatchDataset(DenseToRaggedDataset(self, row_splits_dtype), batch_size, drop_remainder)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False, name: Optional[str] = None) -> "Dataset":
        """``tf.data.Dataset.rebatch``: the rows of the batches cut again into ``batch_size``
        (a size, or a list of sizes used in turn)."""
        RebatchDataset = registry.lookup("RebatchDataset")
        return RebatchDataset(self, batch_size, drop_remainder)

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: Optional[str] = None,
    ) -> "Dataset":
        """Batches whose components are padded to ``padded_shapes`` (unknown dimensions to the
        batch's largest) with ``padding_values`` (0 or empty strings)."""
        PaddedBatchDataset = registry.lookup("PaddedBatchDataset")
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def window(
        self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False, name: Optional[str] = None
    ) -> "Dataset":
        """Windows of ``size`` elements, ``shift`` apart: each a (nested structure of) dataset."""
        WindowDataset = registry.lookup("WindowDataset")
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def interleave(
        self,
        map_func: Callable,
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """The datasets ``map_func`` returns, ``cycle_length`` at a time, ``block_length``
        elements from each in turn (read on threads with ``num_parallel_calls``)."""
        InterleaveDataset = registry.lookup("InterleaveDataset")
        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls, deterministic)

    def group_by_window(
        self,
        key_func: Callable,
        reduce_func: Callable,
        window_size: Any = None,
        window_size_func: Optional[Callable] = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """Elements grouped by ``key_func`` into windows reduced by ``reduce_func(key, window)``."""
        GroupByWindowDataset = registry.lookup("GroupByWindowDataset")
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self,
        element_length_func: Callable,
        bucket_boundaries: Any,
        bucket_batch_sizes: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
        name: Optional[str] = None,
    ) -> "Dataset":
        """Elements bucketed by length and padded-batched per bucket."""
        BucketBySequenceLengthDataset = registry.lookup("BucketBySequenceLengthDataset")
        return BucketBySequenceLengthDataset(
            self,
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    def rejection_resample(
        self,
        class_func: Callable,
        target_dist: Any,
        initial_dist: Any = None,
        seed: Optional[int] = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """``(class, element)`` pairs resampled towards ``target_dist``."""
        rejection_resample = registry.lookup("rejection_resample")
        return rejection_resample(self, class_func, target_dist, initial_dist, seed)

    def scan(self, initial_state: Any, scan_func: Callable, name: Optional[str] = None) -> "Dataset":
        """The outputs of ``(state, output) = scan_func(state, element)``."""
        ScanDataset = registry.lookup("ScanDataset")
        return ScanDataset(self, initial_state, scan_func)

    def unique(self, name: Optional[str] = None) -> "Dataset":
        """The first occurrence of each element."""
        UniqueDataset = registry.lookup("UniqueDataset")
        return UniqueDataset(self)

    def ignore_errors(self, log_warning: bool = False, name: Optional[str] = None) -> "Dataset":
        """The elements whose computation did not fail."""
        IgnoreErrorsDataset = registry.lookup("IgnoreErrorsDataset")
        return IgnoreErrorsDataset(self, log_warning)

    def take_while(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        """Elements up to the first for which ``predicate`` is False."""
        TakeWhileDataset = registry.lookup("TakeWhileDataset")
        return TakeWhileDataset(self, predicate)

    def shard(self, num_shards: Any, index: Any, name: Optional[str] = None) -> "Dataset":
        """Every ``num_shards``-th element starting at ``index``."""
        ShardDataset = registry.lookup("ShardDataset")
        return ShardDataset(self, num_shards, index)

    def options(self) -> Any:
        """The ``tf.data.Options`` of this dataset (merged from its inputs; read-only)."""
        out = Options()
        for d in self._inputs:
            out = out.merge(d.options())
        own = getattr(self, "_own_options", None)
        if own is not None:
            out = out.merge(own)
        out._freeze()
        return out

    def with_options(self, options: Any, name: Optional[str] = None) -> "Dataset":
        """The same elements with ``options`` merged in (later settings win)."""
        OptionsDataset = registry.lookup("OptionsDataset")
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {options!r}.")
        return OptionsDataset(self, options)

    def unbatch(self, name: Optional[str] = None) -> "Dataset":
        """The inverse of ``batch``: each element split along its first dimension."""
        UnbatchDataset = registry.lookup("UnbatchDataset")
        return UnbatchDataset(self)

    def shuffle(
        self,
        buffer_size: Any,
        seed: Optional[int] = None,
        reshuffle_each_iteration: Optional[bool] = None,
        name: Optional[str] = None,
    ) -> "Dataset":
        """Elements in random order through a buffer of ``buffer_size`` (reproducible with ``seed``)."""
        ShuffleDataset = registry.lookup("ShuffleDataset")
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: Optional[str] = None) -> "Dataset":
        """The dataset ``count`` times (forever when None or -1)."""
        RepeatDataset = registry.lookup("RepeatDataset")
        return RepeatDataset(self, count)

    def take(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """The first ``count`` elements (all when -1)."""
        TakeDataset = registry.lookup("TakeDataset")
        return TakeDataset(self, count)

    def skip(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """All but the first ``count`` elements (none when -1)."""
        SkipDataset = registry.lookup("SkipDataset")
        return SkipDataset(self, count)

    def enumerate(self, start: Any = 0, name: Optional[str] = None) -> "Dataset":
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        RangeDataset = registry.lookup("RangeDataset")
        ZipDataset = registry.lookup("ZipDataset")
        return ZipDataset((RangeDataset(start, np.iinfo(np.int64).max), self))

    def prefetch(self, buffer_size: Any, name: Optional[str] = None) -> "Dataset":
        """The same elements (fn runs pipelines synchronously, so prefetching is a no-op)."""
        PrefetchDataset = registry.lookup("PrefetchDataset")
        if as_int(buffer_size, "buffer_size") < -1:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"
            )
        return PrefetchDataset(self)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "Dataset":
        """The same elements, kept after the first full pass: in memory, or in the file
        ``filename`` (fn's format, read by later iterations and programs)."""
        CacheDataset = registry.lookup("CacheDataset")
        if filename:
            SnapshotDataset = registry.lookup("SnapshotDataset")
            out = SnapshotDataset(self, filename + ".fn_cache")
            out._type_name = "CacheDataset"
            return out
        return CacheDataset(self)

    def concatenate(self, dataset: "Dataset", name: Optional[str] = None) -> "Dataset":
        """This dataset's elements followed by ``dataset``'s."""
        ConcatenateDataset = registry.lookup("ConcatenateDataset")
        return ConcatenateDataset(self, dataset)

    def flat_map(self, map_func: Callable, name: Optional[str] = None) -> "Dataset":
        """The concatenation of the datasets ``map_func(element)`` returns (run eagerly)."""
        FlatMapDataset = registry.lookup("FlatMapDataset")
        return FlatMapDataset(self, map_func)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        """``transformation_func(self)``."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a `fn.data.Dataset` object.")
        return out

    def get_single_element(self, name: Optional[str] = None) -> Any:
        """``tf.data.Dataset.get_single_element``: the dataset's only element; InvalidArgumentError
        when it has none or more than one."""
        del name
        return iterator_ops.single_element_op(self)

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds the elements: ``state = reduce_func(state, element)`` from ``initial_state``."""
        reduce_dataset = registry.lookup("reduce_dataset")
        return reduce_dataset(self, initial_state, reduce_func)


@registry.register
class _VariantDataset(Dataset):
    """A dataset inside a graph, known only by its variant handle (a Function's dataset argument)."""

    _type_name = "_VariantDataset"

    def __init__(self, handle: Any, element_spec: Any) -> None:
        super().__init__((), element_spec, [handle])
        self._variant = handle

    def _elements(self) -> PyIterator[Any]:
        raise errors.OperatorNotAllowedInGraphError(
            "A dataset argument of a Function can only be iterated by the graph (a for loop that "
            "AutoGraph converts, iter() and next(), or reduce)."
        )

    def _rebuilt(self, values: PyIterator[Any]) -> Dataset:
        return _core.variant_value(next(values))


def _to_numpy(x: Any) -> Any:
    """One leaf as NumPy, as TF's NumpyIterator: ``_numpy()`` where a composite has it (a
    SparseTensor's dense array), else ``numpy()``."""
    return x._numpy() if hasattr(x, "_numpy") else x.numpy()


class NumpyIterator:
    """``Dataset.as_numpy_iterator()``: the elements with NumPy values."""

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        self._elements = dataset._elements()

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        try:
            return structure.map_structure(_to_numpy, next(self._elements))
        except errors.OpError as e:
            raise error_text.iterator_error(e, self._dataset) from None

    next = __next__

    def __repr__(self) -> str:
        return f"NumpyIterator(iterator=<fn.data.Iterator object at 0x{id(self):x}>)"
