"""CRC-32C (Castagnoli), the checksum of TFRecord files, and TF's masked form of it.

Uses the ``google_crc32c`` or ``crc32c`` package when installed (hardware speed); otherwise a
table-driven implementation in Python (a few MB/s, enough for the records tests and guides use).
"""

from __future__ import annotations

from typing import Callable, List

_POLY = 0x82F63B78  # reflected Castagnoli polynomial
_MASK_DELTA = 0xA282EAD8


def _make_table() -> List[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def _crc32c_py(data: bytes) -> int:
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _pick() -> Callable[[bytes], int]:
    try:
        import google_crc32c

        if google_crc32c.implementation == "c":
            return lambda data: google_crc32c.value(bytes(data))
    except ImportError:
        pass
    try:
        import crc32c as _c

        return lambda data: _c.crc32c(bytes(data))
    except ImportError:
        pass
    return _crc32c_py


crc32c: Callable[[bytes], int] = _pick()


def masked_crc32c(data: bytes) -> int:
    """TF's ``crc32c::Mask``: the CRC rotated right by 15 bits plus a constant (so that CRCs of
    data containing CRCs stay well distributed)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF
