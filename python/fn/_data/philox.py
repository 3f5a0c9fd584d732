"""TF's Philox-4x32-10 stream as tf.data's kernels sample it (``SingleSampleAdapter<PhiloxRandom>``):
the random numbers of ``shuffle``, ``Dataset.random`` and ``sample_from_datasets``."""

from __future__ import annotations

import bisect
import math
import struct
from typing import Any, List, Tuple

import numpy as np

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
    x0, x1 = g(), g()
    bits = (1023 << 52) | ((x0 & 0xFFFFF) << 32) | x1
    return struct.unpack("<d", struct.pack("<Q", bits))[0] - 1.0


def stateless_categorical(logits: Any, seed: int, seed2: int) -> int:
    """One draw of TF's ``StatelessMultinomial`` for one row of float32 ``logits``."""
    row = np.asarray(logits, np.float32).reshape(-1)
    finite = [float(v) for v in row if math.isfinite(v)]
    top = max(finite) if finite else float(np.finfo(np.float32).min)
    cdf, total = [], 0.0
    for v in row:
        if math.isfinite(v):
            total += math.exp(float(v) - top)
        cdf.append(total)
    return bisect.bisect_right(cdf, rand_double(stateless_generator(seed, seed2)) * total)
