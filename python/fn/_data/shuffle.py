"""``Dataset.shuffle`` with TF's order: the same seeds give the same permutation as TF.

TF's ``ShuffleDatasetV3`` kernel keeps a ring buffer of ``buffer_size`` elements; each output
is ``buffer[start + Random() % count]``, whose place is then taken by ``buffer[start]``.
``Random()`` is the next 32-bit sample of ``SingleSampleAdapter<PhiloxRandom(seed, seed2)>``.
With ``reshuffle_each_iteration`` each new iterator's (seed, seed2) are the next two samples of
a seed generator ``Philox(seed, seed2)`` owned by the dataset; otherwise every iterator uses
(seed, seed2) themselves. The dataset's (seed, seed2) come from ``tf.random.set_seed`` and the
op seed as ``tf.data``'s ``random_seed.get_seed`` derives them; (0, 0) means fresh random seeds.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Iterator as PyIterator, Optional, Tuple

from fn import errors, _core
from fn._data import registry
from fn._data.dataset_ops import Dataset, UNKNOWN, as_int
from fn._data.philox import PhiloxSamples
from fn._ops.random_ops import get_seed
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import int64


@registry.register
class RandomDataset(Dataset):
    """``Dataset.random``: int64 values of TF's Philox stream for the seeds (a new stream per
    iteration with ``rerandomize_each_iteration``)."""

    _type_name = "_RandomDataset"

    def __init__(self, seed: Optional[int] = None, rerandomize_each_iteration: Optional[bool] = None) -> None:
        super().__init__((), TensorSpec([], int64))
        self._seeds = _fresh(*op_seeds(seed))
        self._seed_generator = [PhiloxSamples(*self._seeds)] if rerandomize_each_iteration else None
        self._lock = threading.Lock()

    def _cardinality(self) -> int:
        return -1

    def _elements(self) -> PyIterator[Any]:
        if self._seed_generator is None:
            seeds = self._seeds
        else:
            with self._lock:
                g = self._seed_generator[0]
                seeds = (g(), g())
        rand = PhiloxSamples(*seeds)
        while True:
            yield _core.to_eager(rand(), int64)


def op_seeds(seed: Optional[int]) -> Tuple[int, int]:
    """``tf.data``'s ``random_seed.get_seed``: (seed, seed2) from the global and op seeds; both
    0 when neither is set (the kernel then draws fresh random seeds)."""
    return get_seed(None if seed is None else int(seed))


def _fresh(seed: int, seed2: int) -> Tuple[int, int]:
    """TF's ``RandomSeeds``: (0, 0) is replaced by fresh random 64-bit seeds."""
    if seed == 0 and seed2 == 0:
        return int.from_bytes(os.urandom(8), "little"), int.from_bytes(os.urandom(8), "little")
    return seed, seed2


@registry.register
class ShuffleDataset(Dataset):
    """``Dataset.shuffle``: TF's buffer algorithm and random numbers (see the module doc)."""

    _type_name = "_ShuffleDataset"

    def __init__(
        self, input_dataset: Dataset, buffer_size: Any, seed: Optional[int], reshuffle_each_iteration: Optional[bool]
    ) -> None:
        n = as_int(buffer_size, "buffer_size")
        if n <= 0 and n != UNKNOWN:  # -2 (UNKNOWN_CARDINALITY): buffer the whole input
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"
            )
        super().__init__((input_dataset,), input_dataset.element_spec)
        self._size = n
        self._seeds = _fresh(*op_seeds(seed))
        self._reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        # The seed generator is shared by every iterator (and every copy a graph rebuilds).
        self._seed_generator = [PhiloxSamples(*self._seeds)] if self._reshuffle else None
        self._lock = threading.Lock()

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _iterator_seeds(self) -> Tuple[int, int]:
        if self._seed_generator is None:
            return self._seeds
        with self._lock:
            g = self._seed_generator[0]
            return g(), g()

    def _elements(self) -> PyIterator[Any]:
        size = self._size
        if size == UNKNOWN:
            c = self._inputs[0]._cardinality()
            size = c if c > 0 else 2**62
        rand = PhiloxSamples(*self._iterator_seeds())
        ring: dict = {}  # position % size -> element (a dict: the buffer may be huge)
        start = end = 0
        inputs: Optional[PyIterator[Any]] = self._inputs[0]._elements()
        while True:
            while inputs is not None and end - start < size:
                try:
                    ring[end % size] = next(inputs)
                    end += 1
                except StopIteration:
                    inputs = None
            if end == start:
                return
            index = (start + rand() % (end - start)) % size
            out = ring[index]
            first = start % size
            ring[index] = ring[first]
            del ring[first]
            start += 1
            yield out


__all__ = ["ShuffleDataset", "op_seeds"]
