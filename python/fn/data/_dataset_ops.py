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
from typing import Any, Callable, Iterator as PyIterator, List, Optional, Sequence, Tuple

import numpy as np

from fn import _core, errors
from fn.data import _structure as structure
from fn.data._structure import DatasetSpec

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


class Dataset:
    """A sequence of elements, each a nested structure of tensors (``tf.data.Dataset``)."""

    _type_name = "Dataset"

    def __init__(self, inputs: Sequence["Dataset"], element_spec: Any, tensors: Sequence[Any] = ()) -> None:
        self._inputs: Tuple["Dataset", ...] = tuple(inputs)
        self._element_spec = element_spec
        self._tensors: List[Any] = list(tensors)   # tensor arguments (may be graph tensors)

    # ------------------------------------------------------------ to implement
    def _elements(self) -> PyIterator[Any]:
        """The elements, eagerly, as nested eager tensors."""
        raise NotImplementedError

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
            raise TypeError("`fn.data.Dataset` only supports `len` in eager mode. Use "
                            "`fn.data.Dataset.cardinality()` instead.")
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
        from fn.data._iterator_ops import Iterator, SymbolicIterator, make_iterator_op
        if _core.executing_eagerly():
            return Iterator(self)
        return SymbolicIterator(make_iterator_op(self), self._element_spec)

    def as_numpy_iterator(self) -> "NumpyIterator":
        """An iterator of NumPy values (``tf.data.Dataset.as_numpy_iterator``)."""
        if not _core.executing_eagerly():
            raise RuntimeError("`fn.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        for s in structure.flatten(self._element_spec):
            if not s.dtype.is_numpy_compatible:
                raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets that produce "
                                f"values of type {s.dtype.name}")
        return NumpyIterator(self)

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in dataset``: ``body(element, state) -> state``. Inside a Function it
        is one graph loop over a fresh iterator (its size does not grow with the data)."""
        from fn.data import _iterator_ops as iterator_ops
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
        from fn.data._iterator_ops import dataset_handle_op
        return DatasetSpec(self._element_spec), [dataset_handle_op(self)]

    def _all_tensors(self) -> List[Any]:
        out = list(self._tensors)
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
        new._inputs = tuple(d._rebuilt(values) for d in self._inputs)
        new._on_rebuilt()
        return new

    def _on_rebuilt(self) -> None:
        """Hook for datasets that derive state from their tensors."""

    # ------------------------------------------------------------ sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """The slices of ``tensors`` along their first dimension (nested structures allowed)."""
        from fn.data._sources import TensorSliceDataset
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """One element: ``tensors``."""
        from fn.data._sources import TensorDataset
        return TensorDataset(tensors)

    @staticmethod
    def from_generator(generator: Callable, output_types: Any = None, output_shapes: Any = None,
                       args: Any = None, output_signature: Any = None, name: Optional[str] = None) -> "Dataset":
        """The elements yielded by ``generator()`` (called afresh for each iteration), converted
        and checked against ``output_signature`` (or ``output_types``/``output_shapes``)."""
        from fn.data._sources import GeneratorDataset
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: Optional[str] = None) -> "Dataset":
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars (or ``output_type``)."""
        from fn.data._sources import RangeDataset
        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: Optional[str] = None) -> "Dataset":
        """Elements of several datasets together: ``zip((a, b))``, ``zip(a, b)`` or ``zip({'x': a})``."""
        from fn.data._transforms import ZipDataset
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return ZipDataset(datasets)

    # ------------------------------------------------------------ transformations
    def map(self, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None,
            name: Optional[str] = None) -> "Dataset":
        """``map_func`` applied to each element (traced once into a graph, as TF does; a tuple
        element is passed as positional arguments)."""
        from fn.data._transforms import MapDataset
        return MapDataset(self, map_func)

    def filter(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        """The elements for which ``predicate`` (a scalar bool) is True."""
        from fn.data._transforms import FilterDataset
        return FilterDataset(self, predicate)

    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: Optional[str] = None) -> "Dataset":
        """Consecutive elements stacked into batches of ``batch_size``."""
        from fn.data._transforms import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder)

    def unbatch(self, name: Optional[str] = None) -> "Dataset":
        """The inverse of ``batch``: each element split along its first dimension."""
        from fn.data._transforms import UnbatchDataset
        return UnbatchDataset(self)

    def shuffle(self, buffer_size: Any, seed: Optional[int] = None, reshuffle_each_iteration: bool = True,
                name: Optional[str] = None) -> "Dataset":
        """Elements in random order through a buffer of ``buffer_size`` (reproducible with ``seed``)."""
        from fn.data._transforms import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: Optional[str] = None) -> "Dataset":
        """The dataset ``count`` times (forever when None or -1)."""
        from fn.data._transforms import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """The first ``count`` elements (all when -1)."""
        from fn.data._transforms import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """All but the first ``count`` elements (none when -1)."""
        from fn.data._transforms import SkipDataset
        return SkipDataset(self, count)

    def enumerate(self, start: Any = 0, name: Optional[str] = None) -> "Dataset":
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        from fn.data._sources import RangeDataset
        from fn.data._transforms import ZipDataset
        return ZipDataset((RangeDataset(start, np.iinfo(np.int64).max), self))

    def prefetch(self, buffer_size: Any, name: Optional[str] = None) -> "Dataset":
        """The same elements (fn runs pipelines synchronously, so prefetching is a no-op)."""
        from fn.data._sources import _as_int
        from fn.data._transforms import PrefetchDataset
        if _as_int(buffer_size, "buffer_size") < -1:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning")
        return PrefetchDataset(self)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "Dataset":
        """The same elements, kept in memory after the first full pass."""
        from fn.data._transforms import CacheDataset
        return CacheDataset(self)

    def concatenate(self, dataset: "Dataset", name: Optional[str] = None) -> "Dataset":
        """This dataset's elements followed by ``dataset``'s."""
        from fn.data._transforms import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def flat_map(self, map_func: Callable, name: Optional[str] = None) -> "Dataset":
        """The concatenation of the datasets ``map_func(element)`` returns (run eagerly)."""
        from fn.data._transforms import FlatMapDataset
        return FlatMapDataset(self, map_func)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        """``transformation_func(self)``."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a `fn.data.Dataset` object.")
        return out

    def with_options(self, options: Any, name: Optional[str] = None) -> "Dataset":
        """``Dataset.with_options``: the same elements with ``options`` set (see ``_options``)."""
        from fn.data._options import _with_options
        return _with_options(self, options, name)

    def options(self) -> Any:
        """``Dataset.options``: the ``tf.data.Options`` set on this pipeline."""
        from fn.data._options import _options
        return _options(self)

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds the elements: ``state = reduce_func(state, element)`` from ``initial_state``."""
        from fn.data._transforms import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)


class _VariantDataset(Dataset):
    """A dataset inside a graph, known only by its variant handle (a Function's dataset argument)."""

    _type_name = "_VariantDataset"

    def __init__(self, handle: Any, element_spec: Any) -> None:
        super().__init__((), element_spec, [handle])
        self._variant = handle

    def _elements(self) -> PyIterator[Any]:
        raise errors.OperatorNotAllowedInGraphError(
            "A dataset argument of a Function can only be iterated by the graph (a for loop that "
            "AutoGraph converts, iter() and next(), or reduce).")

    def _rebuilt(self, values: PyIterator[Any]) -> Dataset:
        return _core.variant_value(next(values))


class NumpyIterator:
    """``Dataset.as_numpy_iterator()``: the elements with NumPy values."""

    def __init__(self, dataset: Dataset) -> None:
        self._elements = dataset._elements()

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        return structure.map_structure(lambda t: t.numpy(), next(self._elements))

    next = __next__

    def __repr__(self) -> str:
        return f"NumpyIterator(iterator=<fn.data.Iterator object at 0x{id(self):x}>)"
