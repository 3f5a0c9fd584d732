"""More transformations: ``padded_batch``, ``window``, ``group_by_window``,
``bucket_by_sequence_length``, ``rejection_resample``, ``scan``, ``unique``, ``ignore_errors``,
``take_while``, ``shard`` and ``Dataset.counter`` (TF's datasets of the same names)."""

from __future__ import annotations

import collections
import copy
import itertools
from typing import Any, Callable, Dict, Iterator as PyIterator, List, Optional, Tuple

import numpy as np

from fn import _core, errors
from fn.dtypes import int32, int64, string, as_dtype
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._data import registry, structure
from fn._data.dataset_ops import INFINITE, UNKNOWN, Dataset, as_int, wrap_int64
from fn._data.structure import DatasetSpec
from fn._data.traced_functions import TracedFunction, dataset_function, to_output, traced_predicate
from fn._data.transforms import _UnaryDataset, batched_cardinality
from fn._ops import array_ops as _array_ops
from fn._ops import math_ops as _math_ops
from fn._ops import random_ops as _random_ops
from fn import dtypes as _dtypes
from fn._data.interleave import sample_from_datasets
from fn._autograph import operators as autograph
from fn._function.function import Function


# ---------------------------------------------------------------- padded_batch


def _padded_shape(spec: TensorSpec, given: Any) -> TensorShape:
    if given is None:
        if spec.shape.rank is None:
            raise ValueError("You must provide `padded_shapes` argument because component 0 has unknown rank.")
        return TensorShape([None] * spec.shape.rank)
    if _core.is_tensor(given):
        given = given.numpy().tolist()
    shape = (
        TensorShape([None if d is None or d == -1 else d for d in given])
        if isinstance(given, (list, tuple))
        else TensorShape(given)
    )
    if shape.rank is not None and not spec.shape.is_compatible_with(TensorShape([None] * shape.rank)):
        raise ValueError(
            f"The padded shape {shape} is not compatible with the shape {spec.shape} of the "
            "corresponding input component."
        )
    for d, want in zip(spec.shape.as_list() if spec.shape.rank is not None else [], shape.as_list()):
        if d is not None and want is not None and d > want:
            raise ValueError(
                f"The padded shape {shape} is not compatible with the shape {spec.shape} of the "
                "corresponding input component."
            )
    return shape


def _flat_up_to(spec: Any, value: Any, n: int) -> List[Any]:
    """``value`` flattened like ``spec`` (one value for all components when not a structure)."""
    if value is None or not structure.is_structure(spec):
        return [value] * n
    if isinstance(spec, tuple) and isinstance(value, list):
        value = tuple(value)
    return structure.flatten(value) if structure.is_structure(value) else [value] * n


@registry.register
class PaddedBatchDataset(_UnaryDataset):
    """``Dataset.padded_batch``: batches whose components are padded to ``padded_shapes``
    (each unknown dimension to the largest in the batch) with ``padding_values``."""

    _type_name = "_PaddedBatchDataset"

    def __init__(
        self, input_dataset: Dataset, batch_size: Any, padded_shapes: Any, padding_values: Any, drop_remainder: bool
    ) -> None:
        n = as_int(batch_size, "batch_size")
        if n <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        specs = structure.flatten(input_dataset.element_spec)
        shapes = [
            _padded_shape(s, g)
            for s, g in zip(specs, _flat_up_to(input_dataset.element_spec, padded_shapes, len(specs)))
        ]
        pads = []
        for s, v in zip(specs, _flat_up_to(input_dataset.element_spec, padding_values, len(specs))):
            if v is None:
                v = b"" if s.dtype == string else 0
            t = v if _core.is_tensor(v) else _core.convert_to_tensor(v, s.dtype)
            if t.dtype != s.dtype:
                raise TypeError(f"Padding value {v!r} has dtype {t.dtype.name}, expected {s.dtype.name}.")
            if t.shape.rank != 0:
                raise ValueError(
                    f"Invalid `padding_values`. `padding_values` values should be scalars, but got {t.shape}."
                )
            pads.append(t.numpy())
        self._n, self._drop, self._shapes, self._pads = n, bool(drop_remainder), shapes, pads
        lead = TensorShape([n if self._drop else None])
        super().__init__(
            input_dataset,
            structure.pack(
                input_dataset.element_spec, [TensorSpec(lead.concatenate(sh), s.dtype) for sh, s in zip(shapes, specs)]
            ),
        )

    def _elements(self) -> PyIterator[Any]:
        it = self._input._elements()
        while True:
            batch = list(itertools.islice(it, self._n))
            if not batch or (self._drop and len(batch) < self._n):
                return
            flats = [structure.flatten(e) for e in batch]
            cols = [self._pad([f[i] for f in flats], i) for i in range(len(flats[0]))]
            yield structure.pack(self._element_spec, cols)

    def _pad(self, tensors: List[Any], i: int) -> Any:
        want = self._shapes[i].as_list()
        values = [np.asarray(t.numpy(), dtype=object if t.dtype == string else None) for t in tensors]
        dims = []
        for k, w in enumerate(want):
            biggest = max(v.shape[k] for v in values)
            if w is not None and biggest > w:
                raise errors.DataLossError(None, None, "Attempted to pad to a smaller size than the input element.")
            dims.append(w if w is not None else biggest)
        dt = tensors[0].dtype
        out = np.full([len(values)] + dims, self._pads[i], dtype=object if dt == string else dt.as_numpy_dtype)
        for j, v in enumerate(values):
            out[(j,) + tuple(slice(0, d) for d in v.shape)] = v
        return _core.to_eager(out, dt)

    def _cardinality(self) -> int:
        return batched_cardinality(self._input._cardinality(), self._n, self._drop)


# ---------------------------------------------------------------- window


class _ListDataset(Dataset):
    """A window: a dataset of already produced elements (TF shows it as ``_VariantDataset``)."""

    _type_name = "_VariantDataset"

    def __init__(self, elements: List[Any], element_spec: Any) -> None:
        super().__init__((), element_spec)
        self._items = elements

    def _elements(self) -> PyIterator[Any]:
        return iter(self._items)

    def _cardinality(self) -> int:
        return len(self._items)


@registry.register
class WindowDataset(_UnaryDataset):
    """``Dataset.window``: each element is a nested structure of datasets (one per component)
    of ``size`` consecutive elements (every ``stride``-th), windows ``shift`` apart."""

    _type_name = "_WindowDataset"

    def __init__(self, input_dataset: Dataset, size: Any, shift: Any, stride: Any, drop_remainder: bool) -> None:
        self._size = as_int(size, "size")
        self._shift = self._size if shift is None else as_int(shift, "shift")
        self._stride = as_int(stride, "stride")
        for name, v in (("size", self._size), ("shift", self._shift), ("stride", self._stride)):
            if v <= 0:
                raise errors.InvalidArgumentError(None, None, f"Window {name} must be greater than zero, but got {v}.")
        self._drop = bool(drop_remainder)
        super().__init__(input_dataset, structure.map_structure(DatasetSpec, input_dataset.element_spec))

    def _elements(self) -> PyIterator[Any]:
        span = (self._size - 1) * self._stride + 1
        buf: collections.deque = collections.deque()
        base = 0  # input index of buf[0]
        it = self._input._elements()
        done = False
        start = 0
        while True:
            while not done and base + len(buf) < start + span:
                try:
                    buf.append(next(it))
                except StopIteration:
                    done = True
            items = [buf[i - base] for i in range(start, start + span, self._stride) if i - base < len(buf)]
            if not items or (self._drop and len(items) < self._size):
                return
            yield self._window(items)
            start += self._shift
            while buf and base < start:
                buf.popleft()
                base += 1

    def _window(self, items: List[Any]) -> Any:
        in_spec = self._input.element_spec
        flats = [structure.flatten(e) for e in items]
        specs = structure.flatten(in_spec)
        return structure.pack(in_spec, [_ListDataset([f[i] for f in flats], s) for i, s in enumerate(specs)])

    def _cardinality(self) -> int:
        c = self._input._cardinality()
        if c < 0:
            return c
        if self._drop:
            span = wrap_int64((self._size - 1) * self._stride + 1)
            return 0 if c < span else (c - span) // self._shift + 1
        return -(-c // self._shift)


# ---------------------------------------------------------------- group_by_window / bucketing


@registry.register
class GroupByWindowDataset(_UnaryDataset):
    """``Dataset.group_by_window``: elements grouped by ``key_func`` (int64); a group's window
    of ``window_size`` elements is passed to ``reduce_func(key, window)``, whose dataset's
    elements are the output; at the end the partial groups are flushed in key order."""

    _type_name = "_GroupByWindowDataset"

    def __init__(
        self,
        input_dataset: Dataset,
        key_func: Callable,
        reduce_func: Callable,
        window_size: Any,
        window_size_func: Optional[Callable],
    ) -> None:
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
        spec = input_dataset.element_spec
        self._key = TracedFunction(key_func, spec, "Dataset_group_by_window_key")
        ks = self._key.output_spec
        if not (isinstance(ks, TensorSpec) and ks.dtype == int64 and ks.shape.rank == 0):
            raise ValueError(
                f"Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but "
                f"its return type is {structure.spec_text(ks)}."
            )
        self._size_func = None
        self._size = None
        if window_size_func is not None:
            self._size_func = TracedFunction(window_size_func, TensorSpec([], int64), "Dataset_window_size")
        else:
            self._size = as_int(window_size, "window_size")
        self._reduce, out_spec = dataset_function(
            reduce_func, (TensorSpec([], int64), DatasetSpec(spec)), "Dataset_group_by_window_reduce"
        )
        super().__init__(input_dataset, out_spec)

    def _window_size(self, key: Any) -> int:
        if self._size is not None:
            return self._size
        assert self._size_func is not None  # window_size or window_size_func, checked at construction
        return int(self._size_func(key).numpy())

    def _elements(self) -> PyIterator[Any]:
        groups: Dict[int, List[Any]] = {}
        keys: Dict[int, Any] = {}
        for e in self._input._elements():
            k = self._key(e)
            kv = int(k.numpy())
            groups.setdefault(kv, []).append(e)
            keys[kv] = k
            if len(groups[kv]) >= self._window_size(k):
                window = groups.pop(kv)
                yield from self._reduce((k, _ListDataset(window, self._input.element_spec)))._elements()
        for kv in sorted(groups):
            yield from self._reduce((keys[kv], _ListDataset(groups[kv], self._input.element_spec)))._elements()

    def _cardinality(self) -> int:
        return UNKNOWN


@registry.register
class BucketBySequenceLengthDataset(_UnaryDataset):
    """``Dataset.bucket_by_sequence_length``: elements bucketed by ``element_length_func``
    (bucket ``i`` holds lengths in ``[boundaries[i-1], boundaries[i])``) and (padded-)batched
    with their bucket's batch size; TF's ``group_by_window`` order (full batches as they fill,
    then the rest by bucket)."""

    _type_name = "_GroupByWindowDataset"

    def __init__(
        self,
        input_dataset: Dataset,
        element_length_func: Callable,
        bucket_boundaries: List[int],
        bucket_batch_sizes: List[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
    ) -> None:
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError(
                f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
            )
        spec = input_dataset.element_spec
        self._length = TracedFunction(element_length_func, spec, "Dataset_element_length")
        self._bounds = [int(b) for b in bucket_boundaries]
        self._sizes = [int(b) for b in bucket_batch_sizes]
        self._opts = (
            padded_shapes,
            padding_values,
            bool(pad_to_bucket_boundary),
            bool(no_padding),
            bool(drop_remainder),
        )
        super().__init__(input_dataset, self._batcher(0, _ListDataset([], spec)).element_spec)

    def _batcher(self, bucket: int, window: Dataset) -> Dataset:
        padded_shapes, padding_values, to_boundary, no_padding, drop = self._opts
        size = self._sizes[bucket]
        if no_padding:
            return window.batch(size, drop_remainder=drop)
        shapes = padded_shapes
        if shapes is None:
            shapes = structure.map_structure(lambda s: s.shape, window.element_spec)
        if to_boundary:
            if bucket >= len(self._bounds):
                raise errors.InvalidArgumentError(
                    None, None, "When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries)."
                )
            fill = self._bounds[bucket] - 1
            shapes = structure.map_structure(
                lambda sh: TensorShape([fill if d is None else d for d in TensorShape(sh).as_list()]), shapes
            )
        return PaddedBatchDataset(window, size, shapes, padding_values, drop)

    def _bucket(self, element: Any) -> int:
        n = int(np.asarray(self._length(element).numpy()))
        return sum(1 for b in self._bounds if n >= b)

    def _elements(self) -> PyIterator[Any]:
        spec = self._input.element_spec
        groups: Dict[int, List[Any]] = {}
        for e in self._input._elements():
            k = self._bucket(e)
            groups.setdefault(k, []).append(e)
            if len(groups[k]) >= self._sizes[k]:
                yield from self._batcher(k, _ListDataset(groups.pop(k), spec))._elements()
        for k in sorted(groups):
            yield from self._batcher(k, _ListDataset(groups[k], spec))._elements()

    def _cardinality(self) -> int:
        return UNKNOWN


def _acceptance_probs_with_mixing(initial: Any, target: Any) -> Tuple[Any, Any]:
    """TF's ``_calculate_acceptance_probs_with_mixing``: per-class acceptance ``a_i`` of the
    rejection sampler and the probability ``m`` of taking an element unfiltered."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    top, m = _math_ops.reduce_max(ratio), _math_ops.reduce_min(ratio)
    return (ratio - m) / (top - m), m


class _RejectionWarning(_UnaryDataset):
    """The acceptance vectors of ``(accept, initial)`` pairs; like TF's ``tf.Print`` in
    ``rejection_resample`` it reports (to stderr, the first 10 times) when more than half of
    the elements would be rejected."""

    _type_name = "_MapDataset"

    def __init__(self, pairs: Dataset) -> None:
        super().__init__(pairs, pairs.element_spec[0])

    def _elements(self) -> PyIterator[Any]:
        import sys

        shown = 0
        for accept, initial in self._input._elements():
            a, p = np.asarray(accept.numpy()), np.asarray(initial.numpy())
            rejected = np.float32(np.sum((1 - a) * p))
            if rejected >= 0.5 and shown < 10:
                shown += 1
                text = "".join("[" + " ".join(f"{float(v):.9g}" for v in np.ravel(x)) + "]" for x in (rejected, p, a))
                print(f"Proportion of examples rejected by sampler is high: {text}", file=sys.stderr)
            yield accept


@registry.register
def rejection_resample(
    dataset: Dataset, class_func: Callable, target_dist: Any, initial_dist: Any = None, seed: Optional[int] = None
) -> Dataset:
    """``Dataset.rejection_resample``, composed of datasets as TF composes it: a rejection
    filter (``random.uniform < a_class``) mixed with the original elements with probability
    ``m`` by ``sample_from_datasets``; without ``initial_dist`` the class distribution is
    estimated from batches of 32 class values (smoothing 10 per class)."""
    target = _array_ops.cast(_array_ops.convert_to_tensor(target_dist), _dtypes.float32)
    unpack = type(dataset.element_spec) is tuple

    def klass(data: Any) -> Any:
        return class_func(*data) if unpack else class_func(data)

    if initial_dist is not None:
        initial = _array_ops.cast(_array_ops.convert_to_tensor(initial_dist), _dtypes.float32)
        accept, p_original = _acceptance_probs_with_mixing(initial, target)
        initial_ds = Dataset.from_tensors(initial).repeat()
        accept_ds = Dataset.from_tensors(accept).repeat()
        original_ds = Dataset.from_tensors(p_original).repeat()
        static = float(p_original.numpy())
    else:
        n = int(target.shape[0])

        def estimate(seen: Any, c: Any) -> Any:
            seen = seen + _math_ops.reduce_sum(_array_ops.one_hot(c, n, dtype=_dtypes.int64), 0)
            dist = _array_ops.cast(seen / _math_ops.reduce_sum(seen), _dtypes.float32)
            return seen, _array_ops.tile(_array_ops.expand_dims(dist, 0), [32, 1])

        initial_ds = dataset.map(class_func).batch(32).scan(_array_ops.fill([n], np.int64(10)), estimate).unbatch()
        both = initial_ds.map(lambda d: _acceptance_probs_with_mixing(d, target))
        accept_ds = both.map(lambda a, _: a)
        original_ds = both.map(lambda _, m: m)
        static = None

    accept_ds = _RejectionWarning(Dataset.zip((accept_ds, initial_ds)))

    def gather(accept: Any, data: Any) -> Any:
        c = klass(data)
        return c, _array_ops.gather(accept, c), data

    filtered = (
        Dataset.zip((accept_ds, dataset))
        .map(gather)
        .filter(lambda c, p, data: _random_ops.uniform([], seed=seed, dtype=p.dtype) < p)
        .map(lambda c, p, data: (c, data))
    )

    def with_class(*x: Any) -> Any:
        return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

    if static == 1:
        return dataset.map(with_class)
    if static == 0:
        return filtered
    return sample_from_datasets(
        [dataset.map(with_class), filtered],
        weights=original_ds.map(lambda p: _array_ops.stack([p, 1.0 - p])),
        seed=seed,
        stop_on_empty_dataset=True,
    )


@registry.register
class ScanDataset(_UnaryDataset):
    """``Dataset.scan``: ``(state, output) = scan_func(state, element)`` from ``initial_state``."""

    _type_name = "_ScanDataset"

    def __init__(self, input_dataset: Dataset, initial_state: Any, scan_func: Callable) -> None:
        self._initial = structure.normalize_element(initial_state)
        state_spec = structure.spec_from_value(self._initial)

        def step(state: Any, element: Any) -> Any:
            out = to_output(autograph.converted_call(scan_func, (state, element)))
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(
                    "Invalid `scan_func`. `scan_func` should return a pair consisting of new state "
                    f"and the output value but its return type is {out!r}."
                )
            return out

        self._fn = Function(step, name="Dataset_scan", autograph=False)
        while True:  # TF's scan: re-traced with the state's shapes relaxed until they are stable
            concrete = self._fn.get_concrete_function(state_spec, input_dataset.element_spec)
            new_state, output = concrete.structured_outputs
            if not structure.same_structure(self._initial, new_state) or structure.flat_dtypes(state_spec) != [
                t.dtype for t in structure.flatten(new_state)
            ]:
                raise TypeError(
                    "The element types for the new state must match the initial state. Expected "
                    f"{structure.spec_text(state_spec)}; got "
                    f"{structure.spec_text(structure.spec_from_value(new_state))}."
                )
            relaxed = _relaxed_state_spec(state_spec, structure.spec_from_value(new_state))
            if relaxed is None:
                break
            state_spec = relaxed
        # The initial state is among the dataset's tensors and the function's captures of an
        # enclosing trace among its graph inputs (TF's initial_state and other_arguments).
        self._step = _ScanFunction(self._fn, concrete)
        super().__init__(input_dataset, structure.spec_from_value(output), structure.flatten(self._initial))

    def _on_rebuilt(self) -> None:
        self._initial = structure.pack(self._initial, self._tensors)

    def _elements(self) -> PyIterator[Any]:
        state = self._initial
        for e in self._input._elements():
            state, out = self._step(state, e)
            yield out


def _relaxed_state_spec(spec: Any, new: Any) -> Any:
    """``spec`` with each tensor's shape relaxed to also fit ``new``'s, or None if it already fits."""
    flat, changed = [], False
    for a, b in zip(structure.flatten(spec), structure.flatten(new)):
        if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
            shape = a.shape.most_specific_compatible_shape(b.shape)
            if str(shape) != str(a.shape):
                a, changed = TensorSpec(shape, a.dtype, a.name), True
        flat.append(a)
    return structure.pack(spec, flat) if changed else None


class _ScanFunction:
    """``scan``'s Function and its first trace: the trace runs with the running graph's values of
    the tensors it captured from an enclosing trace (``TracedFunction.with_captures``)."""

    def __init__(self, function: Any, concrete: Any) -> None:
        self._function = function
        self._concrete = concrete

    def graph_captures(self) -> List[Any]:
        return [c for c in self._concrete._core.captures if _core.is_tensor(c) and not c._is_eager]

    def with_captures(self, values: Any) -> "_ScanFunction":
        core = self._concrete._core
        caps = [next(values) if _core.is_tensor(c) and not c._is_eager else c for c in core.captures]
        concrete = copy.copy(self._concrete)
        concrete._core = _core.ConcreteFunctionCore(core.graph, caps, core.name)
        return _ScanFunction(None, concrete)

    def __call__(self, state: Any, element: Any) -> Any:
        if self._function is None:  # re-bound: the first trace's signature is the only one
            return self._concrete(state, element)
        return self._function(state, element)


@registry.register
class UniqueDataset(_UnaryDataset):
    """``Dataset.unique``: the first occurrence of each element (scalar ints or strings)."""

    _type_name = "_UniqueDataset"

    def __init__(self, input_dataset: Dataset) -> None:
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise TypeError(
                "`tf.data.Dataset.unique` does not support datasets with elements that are not `tf.Tensor`s."
            )
        if spec.dtype not in (int32, int64, string):
            raise TypeError(f"`tf.data.Dataset.unique` does not support datasets with elements of type {spec.dtype!r}.")
        super().__init__(input_dataset, spec)

    def _elements(self) -> PyIterator[Any]:
        seen = set()
        for e in self._input._elements():
            if e.shape.rank != 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Unique expects a scalar element, got shape {list(e.shape)}."
                )  # TF checks at run time too
            v = e.numpy()
            if v not in seen:
                seen.add(v)
                yield e

    def _cardinality(self) -> int:
        return UNKNOWN


@registry.register
class IgnoreErrorsDataset(_UnaryDataset):
    """``Dataset.ignore_errors``: elements whose computation fails are dropped. The per-element
    steps upstream (map, filter, CSV records, ...) skip failing elements; an error anywhere
    else ends the iteration, as the input cannot go on."""

    _type_name = "_IgnoreErrorsDataset"

    def __init__(self, input_dataset: Dataset, log_warning: bool = False) -> None:
        super().__init__(input_dataset, input_dataset.element_spec)
        self._log = bool(log_warning)

    @staticmethod
    def _skipping(ds: Dataset) -> Dataset:
        new = copy.copy(ds)
        new._skip_errors = True
        new._inputs = tuple(IgnoreErrorsDataset._skipping(d) for d in ds._inputs)
        return new

    def _elements(self) -> PyIterator[Any]:
        it = self._skipping(self._input)._elements()
        while True:
            try:
                e = next(it)
            except StopIteration:
                return
            except errors.OpError as exc:
                if self._log:
                    print(f"Skipping dataset element due to error: {exc}")
                return
            yield e

    def _cardinality(self) -> int:
        return UNKNOWN


@registry.register
class TakeWhileDataset(_UnaryDataset):
    """``Dataset.take_while``: elements up to the first for which ``predicate`` is False."""

    _type_name = "_TakeWhileDataset"

    def __init__(self, input_dataset: Dataset, predicate: Callable) -> None:
        self._func = traced_predicate(predicate, input_dataset.element_spec, "Dataset_take_while")
        super().__init__(input_dataset, input_dataset.element_spec)

    def _elements(self) -> PyIterator[Any]:
        for e in self._input._elements():
            if not bool(self._func(e)):
                return
            yield e

    def _cardinality(self) -> int:
        return UNKNOWN


@registry.register
class ShardDataset(_UnaryDataset):
    """``Dataset.shard``: every ``num_shards``-th element, starting at ``index``."""

    _type_name = "_ShardDataset"

    def __init__(self, input_dataset: Dataset, num_shards: Any, index: Any) -> None:
        self._n = as_int(num_shards, "num_shards")
        self._i = as_int(index, "index")
        if self._n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Number of shards must be greater than zero (currently num_shards = {self._n})."
            )
        if not 0 <= self._i < self._n:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {self._n - 1} (currently index = {self._i})."
            )
        super().__init__(input_dataset, input_dataset.element_spec)

    def _elements(self) -> PyIterator[Any]:
        return itertools.islice(self._input._elements(), self._i, None, self._n)

    def _cardinality(self) -> int:
        c = self._input._cardinality()
        if c < 0:
            return c
        return c // self._n + (1 if self._i < c % self._n else 0)


@registry.register
class CounterDataset(Dataset):
    """``Dataset.counter`` / ``tf.data.experimental.Counter``: ``start``, ``start + step``, ...
    forever (TF builds it with ``scan``, hence its name)."""

    _type_name = "_ScanDataset"

    def __init__(self, start: Any = 0, step: Any = 1, dtype: Any = int64) -> None:
        self._start, self._step = as_int(start, "start"), as_int(step, "step")
        super().__init__((), TensorSpec([], as_dtype(dtype)))

    def _elements(self) -> PyIterator[Any]:
        dt = self._element_spec.dtype
        for v in itertools.count(self._start, self._step):
            yield _core.to_eager(v, dt)

    def _cardinality(self) -> int:
        return INFINITE
