"""The iteration order of TensorFlow's ``gtl::FlatMap<string, _>``, which orders the ``library``
functions of a GraphDef. No fn imports: the tests load this file under TensorFlow too."""

from __future__ import annotations

from typing import List, Optional, Tuple

_M64 = (1 << 64) - 1


def _hash64(s: str, seed: int = 0xDECAFCAFFE) -> int:
    """TF's ``Hash64`` (``tsl/platform/hash.cc``, a MurmurHash64A), the hash of ``gtl::FlatMap``."""
    data = s.encode()
    m, r = 0xC6A4A7935BD1E995, 47
    h = (seed ^ (len(data) * m)) & _M64
    full = len(data) - len(data) % 8
    for i in range(0, full, 8):
        k = (int.from_bytes(data[i : i + 8], "little") * m) & _M64
        k = ((k ^ (k >> r)) * m) & _M64
        h = ((h ^ k) * m) & _M64
    if full < len(data):
        h = ((h ^ int.from_bytes(data[full:], "little")) * m) & _M64
    h = ((h ^ (h >> r)) * m) & _M64
    return h ^ (h >> r)


def flat_map_order(keys: List[str]) -> List[str]:
    """The iteration order of a ``gtl::FlatMap<string, _>`` (``tsl/lib/gtl/flatrep.h``) after
    inserting ``keys`` in turn: slots in buckets of 8, home slot ``(hash >> 8) & mask``, probing
    ``index + 1, + 2, ...``, regrown to fit ``size + 1`` when 80% of the slots are used."""

    def table(n: int) -> Tuple[List[Optional[str]], int]:
        cap = 8
        while n >= 0.8 * cap:
            cap *= 2
        return [None] * cap, int(cap * 0.8)

    def insert(slots: List[Optional[str]], key: str) -> None:
        mask = len(slots) - 1
        index, probes = (_hash64(key) >> 8) & mask, 1
        while slots[index] is not None:
            index = (index + probes) & mask
            probes += 1
        slots[index] = key

    slots, grow = table(1)
    for count, key in enumerate(keys):
        if count >= grow:
            old = [k for k in slots if k is not None]
            slots, grow = table(count + 1)
            for k in old:
                insert(slots, k)
        insert(slots, key)
    return [k for k in slots if k is not None]
