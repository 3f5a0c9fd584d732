"""``Dataset.interleave``, parallel ``map``, ``sample_from_datasets``/``choose_from_datasets``
and ``Dataset.counter``.

Parallelism is real: a parallel ``map`` runs the traced function on a thread pool (fn's
executor releases the GIL while a graph runs), keeping up to ``num_parallel_calls`` elements in
flight; a parallel ``interleave`` reads its open input datasets on background threads. With
``deterministic`` (the default) the order is the sequential order, as in TF.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator as PyIterator, List, Optional, Sequence

import numpy as np

from fn import _core, errors
from fn.dtypes import int64
from fn._data import error_text, registry, structure
from fn._data.philox import stateless_categorical
from fn._data.dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, as_int
from fn._data.traced_functions import dataset_function
from fn._tensor.tensor_spec import TensorSpec
from fn._data.shuffle import RandomDataset


def max_parallelism() -> int:
    """TF's ``port::MaxParallelism()``: the schedulable CPU cores (AUTOTUNE's default width)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cycle(iterables: Iterable[Any], cycle_length: int, block_length: int) -> PyIterator[Any]:
    """TF's ``InterleaveDataset`` order: ``cycle_length`` open inputs, ``block_length``
    elements from each in turn; an exhausted input's slot takes the next input."""
    inputs = iter(iterables)
    slots: List[Optional[PyIterator[Any]]] = [None] * cycle_length
    idx = block = num_open = 0
    end_of_input = False
    while not end_of_input or num_open > 0:
        it = slots[idx]
        if it is not None:
            try:
                e = next(it)
            except StopIteration:
                slots[idx] = None
                num_open -= 1
                idx, block = (idx + 1) % cycle_length, 0
                continue
            block += 1
            if block == block_length:
                idx, block = (idx + 1) % cycle_length, 0
            yield e
        elif not end_of_input:
            try:
                slots[idx] = iter(next(inputs))
                num_open += 1
            except StopIteration:
                end_of_input = True
        else:
            idx, block = (idx + 1) % cycle_length, 0


class _Background:
    """An iterator read ahead by a daemon thread into a bounded queue (errors are re-raised
    where the element would have been)."""

    _DONE = object()

    def __init__(self, source: PyIterator[Any], buffer: int) -> None:
        self._q: "queue.Queue[Any]" = queue.Queue(max(1, buffer))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(source,), daemon=True)
        self._thread.start()

    def _run(self, source: PyIterator[Any]) -> None:
        try:
            for e in source:
                while not self._stop.is_set():
                    try:
                        self._q.put((True, e), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
            self._q.put((True, self._DONE))
        except BaseException as exc:  # handed to the consumer
            self._q.put((False, exc))

    def __iter__(self) -> "_Background":
        return self

    def __next__(self) -> Any:
        ok, e = self._q.get()
        if not ok:
            raise e
        if e is self._DONE:
            raise StopIteration
        return e

    def __del__(self) -> None:
        self._stop.set()


def num_parallel(value: Any, what: str) -> Optional[int]:
    if value is None:
        return None
    n = as_int(value, what)
    if n == AUTOTUNE:
        return max_parallelism()
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be greater than zero.")
    return n


@registry.register
class InterleaveDataset(Dataset):
    """``Dataset.interleave``: ``map_func`` (returning a dataset) is traced once for its element
    spec and called per input element; the results are interleaved in TF's order."""

    def __init__(
        self,
        input_dataset: Dataset,
        map_func: Callable,
        cycle_length: Any,
        block_length: Any,
        num_parallel_calls: Any,
        deterministic: Any,
    ) -> None:
        self._func, spec = dataset_function(map_func, input_dataset.element_spec, "Dataset_interleave")
        super().__init__((input_dataset,), spec)
        cl = AUTOTUNE if cycle_length is None else as_int(cycle_length, "cycle_length")
        self._cycle = max_parallelism() if cl == AUTOTUNE else cl
        if self._cycle <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        self._block = 1 if block_length is None else as_int(block_length, "block_length")
        if self._block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")
        self._parallel = num_parallel(num_parallel_calls, "num_parallel_calls")
        self._type_name = "_InterleaveDataset" if self._parallel is None else "_ParallelInterleaveDataset"

    def _elements(self) -> PyIterator[Any]:
        inner = (
            error_text.inner_elements(self, i % self._cycle, self._func(e))
            for i, e in enumerate(self._inputs[0]._elements())
        )
        if self._parallel is None:
            return cycle(inner, self._cycle, self._block)
        started = (_Background(d, 2 * self._block) for d in inner)
        return cycle(_ahead(started, self._cycle), self._cycle, self._block)


def _ahead(items: PyIterator[Any], n: int) -> PyIterator[Any]:
    """``items`` pulled up to ``n`` ahead of the consumer (so that as many readers run)."""
    buf: List[Any] = []
    for x in items:
        buf.append(x)
        if len(buf) >= n:
            yield buf.pop(0)
    while buf:
        yield buf.pop(0)


def parallel_map(elements: PyIterator[Any], func: Callable[[Any], Any], width: int) -> PyIterator[Any]:
    """``func`` over ``elements`` on ``width`` threads, results in input order."""
    pending: List[Any] = []
    pool = ThreadPoolExecutor(width, thread_name_prefix="fn_data_map")
    try:
        for e in elements:
            pending.append(pool.submit(func, e))
            if len(pending) >= width:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()
    finally:
        # Not joined: an iterator given up early is closed by the garbage collector, which may run
        # inside threading's own bookkeeping (a new thread's start); joining there deadlocked on
        # threading's non-reentrant shutdown lock. The idle workers exit by themselves.
        pool.shutdown(wait=False, cancel_futures=True)


class _DirectedInterleave(Dataset):
    """TF's ``DirectedInterleaveDataset``: elements picked from ``datasets`` by the indices
    a selector yields (``choose_from_datasets``; ``sample_from_datasets`` draws them)."""

    _type_name = "_DirectedInterleaveDataset"

    def __init__(self, selector: Dataset, datasets: Sequence[Dataset], stop_on_empty: bool) -> None:
        specs = [d.element_spec for d in datasets]
        spec = specs[0]
        for s in specs[1:]:
            spec = structure._spec_supertype(spec, s)
            if spec is None:
                raise TypeError(
                    "Incompatible dataset elements:\n  " + " vs. ".join(structure.spec_text(x) for x in specs)
                )
        super().__init__((selector,) + tuple(datasets), spec)
        self._stop = bool(stop_on_empty)

    def _elements(self) -> PyIterator[Any]:
        its: List[Optional[PyIterator[Any]]] = [d._elements() for d in self._inputs[1:]]
        live = len(its)
        for choice in self._inputs[0]._elements():
            i = int(choice.numpy())
            if not 0 <= i < len(its):
                raise errors.InvalidArgumentError(None, None, f"Selector index out of range: {i} >= {len(its)}")
            it = its[i]
            if it is None:
                continue
            try:
                yield next(it)
            except StopIteration:
                if self._stop:
                    return
                its[i] = None
                live -= 1
                if live == 0:
                    return

    def _cardinality(self) -> int:
        return UNKNOWN


def _datasets_list(datasets: Any) -> List[Dataset]:
    if not isinstance(datasets, (list, tuple)) or not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset` objects, got {d!r}.")
    return list(datasets)


@registry.register
def choose_from_datasets(datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool = True) -> Dataset:
    """``Dataset.choose_from_datasets``: the element of ``datasets[i]`` for each ``i`` of
    ``choice_dataset`` (scalar int64)."""
    ds = _datasets_list(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(
            f"Invalid `choice_dataset`. `choice_dataset` must be a `tf.data.Dataset`, got {choice_dataset!r}."
        )
    spec = choice_dataset.element_spec
    if not (hasattr(spec, "dtype") and spec.dtype == int64 and spec.shape.rank == 0):
        raise TypeError(
            "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
            f"tensors but are {structure.spec_text(spec)}."
        )
    return _DirectedInterleave(choice_dataset, ds, stop_on_empty_dataset)


class _Categorical(Dataset):
    """The selector of ``sample_from_datasets``, built as TF builds it: pairs of
    ``Dataset.random`` values seed one ``StatelessMultinomial`` draw over the logits (fixed, or
    the next element of a dataset of logits) each."""

    _type_name = "_MapDataset"

    def __init__(self, logits: Any, seed: Optional[int], rerandomize: Any) -> None:
        super().__init__(() if not isinstance(logits, Dataset) else (logits,), TensorSpec([], int64))
        self._random = RandomDataset(seed, rerandomize)
        self._logits = logits

    def _elements(self) -> PyIterator[Any]:
        it = self._random._elements()
        logits = iter(()) if not isinstance(self._logits, Dataset) else self._inputs[0]._elements()
        while True:
            if isinstance(self._logits, Dataset):
                row = next(logits, None)
                if row is None:
                    return
                row = np.log(np.asarray(row.numpy(), np.float32)).reshape(-1)
            else:
                row = self._logits
            a, b = int(next(it).numpy()), int(next(it).numpy())
            yield _core.to_eager(np.int64(stateless_categorical(row, a, b)), int64)

    def _cardinality(self) -> int:
        return INFINITE if not isinstance(self._logits, Dataset) else UNKNOWN


@registry.register
def sample_from_datasets(
    datasets: Any,
    weights: Any = None,
    seed: Optional[int] = None,
    stop_on_empty_dataset: bool = False,
    rerandomize_each_iteration: Any = None,
) -> Dataset:
    """``Dataset.sample_from_datasets``: elements drawn at random from ``datasets`` with
    probabilities ``weights`` (uniform by default); an exhausted dataset is skipped unless
    ``stop_on_empty_dataset``."""
    ds = _datasets_list(datasets)
    if weights is None:
        logits = np.ones(len(ds), np.float32)  # TF: constant logits of 1.0
    else:
        if isinstance(weights, Dataset):  # a dataset of weight vectors: one per draw
            return _DirectedInterleave(
                _Categorical(weights, seed, rerandomize_each_iteration), ds, stop_on_empty_dataset
            )
        w = np.asarray(weights.numpy() if _core.is_tensor(weights) else weights, dtype=np.float32).reshape(-1)
        if w.shape[0] != len(ds):
            raise ValueError(
                f"Invalid `weights`. The shape of `weights` should be compatible with `[len(datasets)]` "
                f"but is {list(w.shape)}."
            )
        with np.errstate(divide="ignore"):
            logits = np.log(w)
    selector = _Categorical(logits, seed, rerandomize_each_iteration)
    return _DirectedInterleave(selector, ds, stop_on_empty_dataset)


__all__ = [
    "InterleaveDataset",
    "parallel_map",
    "choose_from_datasets",
    "sample_from_datasets",
    "cycle",
    "max_parallelism",
]
