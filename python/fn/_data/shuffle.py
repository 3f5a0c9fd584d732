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
from typing import Any, Iterator as PyIterator, List, Optional, Tuple

from fn import errors
from fn._data.dataset_ops import Dataset, UNKNOWN
from fn._ops.random_ops import get_seed

_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_U32 = 0xFFFFFFFF


def philox_block(counter: List[int], key: Tuple[int, int]) -> List[int]:
    """Philox-4x32-10 of a 128-bit counter (4 words) under a 64-bit key (2 words)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & _U32, p1 & _U32, ((p0 >> 32) ^ c3 ^ k1) & _U32, p0 & _U32
        k0, k1 = (k0 + _W0) & _U32, (k1 + _W1) & _U32
    return [c0, c1, c2, c3]


class PhiloxSamples:
    """TF's ``SingleSampleAdapter<PhiloxRandom>``: 32-bit samples, four per counter step.
    ``PhiloxRandom(seed, seed2)`` keys with ``seed`` and starts the counter's high half at
    ``seed2``."""

    def __init__(self, seed: int, seed2: int) -> None:
        seed &= 2**64 - 1
        seed2 &= 2**64 - 1
        self._key = (seed & _U32, seed >> 32)
        self._counter = [0, 0, seed2 & _U32, seed2 >> 32]
        self._block: List[int] = []
        self.count = 0

    def _step(self) -> None:
        c = self._counter
        for i in range(4):
            c[i] = (c[i] + 1) & _U32
            if c[i]:
                break

    def __call__(self) -> int:
        if not self._block:
            self._block = philox_block(self._counter, self._key)[::-1]
            self._step()
        self.count += 1
        return self._block.pop()


def stateless_generator(seed: int, seed2: int) -> PhiloxSamples:
    """TF's ``GenerateKey`` for stateless ops: the seed pair scrambled by one Philox block into
    a key and the counter's high half."""
    seed &= 2**64 - 1
    seed2 &= 2**64 - 1
    mix = philox_block([seed & _U32, seed >> 32, seed2 & _U32, seed2 >> 32], (0x3EC8F720, 0x02461E29))
    g = PhiloxSamples(0, 0)
    g._key = (mix[0], mix[1])
    g._counter = [0, 0, mix[2], mix[3]]
    return g


def rand_double(g: PhiloxSamples) -> float:
    """TF's ``SimplePhilox::RandDouble``: 52 mantissa bits from two samples, in [0, 1)."""
    import struct
    x0, x1 = g(), g()
    bits = (1023 << 52) | ((x0 & 0xFFFFF) << 32) | x1
    return struct.unpack("<d", struct.pack("<Q", bits))[0] - 1.0


def stateless_categorical(logits: Any, seed: int, seed2: int) -> int:
    """One draw of TF's ``StatelessMultinomial`` for one row of float32 ``logits``."""
    import bisect
    import math
    import numpy as np
    row = np.asarray(logits, np.float32).reshape(-1)
    finite = [float(v) for v in row if math.isfinite(v)]
    top = max(finite) if finite else float(np.finfo(np.float32).min)
    cdf, total = [], 0.0
    for v in row:
        if math.isfinite(v):
            total += math.exp(float(v) - top)
        cdf.append(total)
    return bisect.bisect_right(cdf, rand_double(stateless_generator(seed, seed2)) * total)


class RandomDataset(Dataset):
    """``Dataset.random``: int64 values of TF's Philox stream for the seeds (a new stream per
    iteration with ``rerandomize_each_iteration``)."""

    _type_name = "_RandomDataset"

    def __init__(self, seed: Optional[int] = None, rerandomize_each_iteration: Optional[bool] = None) -> None:
        from fn._tensor.tensor_spec import TensorSpec
        from fn.dtypes import int64
        super().__init__((), TensorSpec([], int64))
        self._seeds = _fresh(*op_seeds(seed))
        self._seed_generator = [PhiloxSamples(*self._seeds)] if rerandomize_each_iteration else None
        self._lock = threading.Lock()

    def _cardinality(self) -> int:
        return -1

    def _elements(self) -> PyIterator[Any]:
        from fn import _core
        from fn.dtypes import int64
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


class ShuffleDataset(Dataset):
    """``Dataset.shuffle``: TF's buffer algorithm and random numbers (see the module doc)."""

    _type_name = "_ShuffleDataset"

    def __init__(self, input_dataset: Dataset, buffer_size: Any, seed: Optional[int],
                 reshuffle_each_iteration: Optional[bool]) -> None:
        from fn._data.sources import _as_int
        n = _as_int(buffer_size, "buffer_size")
        if n <= 0 and n != UNKNOWN:   # -2 (UNKNOWN_CARDINALITY): buffer the whole input
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
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
        ring: dict = {}     # position % size -> element (a dict: the buffer may be huge)
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


__all__ = ["ShuffleDataset", "PhiloxSamples", "op_seeds"]
