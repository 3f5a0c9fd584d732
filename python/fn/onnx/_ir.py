"""Reads the graph IR that ``fn._core.serialize_graph`` writes (docs/FORMATS.md) into Python
objects: nodes with typed attrs, constant tensors as NumPy arrays, sub-graphs recursively."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

# By fn's DType code (cpp/core/dtype.h's enum order).
_DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "string",
    "resource",
    "variant",
    "complex64",
    "complex128",
    "uint16",
    "uint32",
    "uint64",
]
_NP = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
}


@dataclass
class Spec:
    dtype: str
    shape: Optional[List[int]]  # None: unknown rank; -1: unknown dim


@dataclass
class Node:
    op: str
    name: str
    inputs: List[Tuple[int, int]]
    control_inputs: List[int]
    attrs: Dict[str, Any]
    outputs: List[Spec]


@dataclass
class Graph:
    name: str
    nodes: List[Node] = field(default_factory=list)
    args: List[int] = field(default_factory=list)
    captures: List[int] = field(default_factory=list)
    outputs: List[Tuple[int, int]] = field(default_factory=list)


class HostObject:
    """A node's host object (plan cache, random state): carries nothing."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.b, self.p = data, 0

    def take(self, fmt: str) -> Any:
        v = struct.unpack_from("<" + fmt, self.b, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v[0] if len(v) == 1 else v

    def text(self) -> str:
        n = self.take("Q")
        s = self.b[self.p : self.p + n]
        self.p += n
        return s.decode("utf-8", "surrogateescape")

    def bytes_(self) -> bytes:
        n = self.take("Q")
        s = self.b[self.p : self.p + n]
        self.p += n
        return s

    def dtype(self) -> str:
        return _DTYPES[self.take("B")]

    def shape(self) -> Optional[List[int]]:
        rank = self.take("i")
        if rank < 0:
            return None
        return [self.take("q") for _ in range(rank)]

    def tensor(self) -> np.ndarray:
        d = self.dtype()
        shape = self.shape() or []
        if d == "string":
            n = self.take("Q")
            return np.array([self.bytes_() for _ in range(n)], dtype=object).reshape(shape)
        n = self.take("Q")
        arr: np.ndarray = np.frombuffer(self.b[self.p : self.p + n], dtype=_NP[d]).reshape(shape).copy()
        self.p += n
        return arr

    def attr(self) -> Any:
        tag = self.take("B")
        if tag == 0:
            return None
        if tag == 1:
            return self.take("q")
        if tag == 2:
            return self.take("d")
        if tag == 3:
            return bool(self.take("B"))
        if tag == 4:
            return self.text()
        if tag == 5:
            return ("dtype", self.dtype())
        if tag == 6:
            return ("shape", self.shape())
        if tag == 7:
            return [self.take("q") for _ in range(self.take("I"))]
        if tag == 8:
            return [("dtype", self.dtype()) for _ in range(self.take("I"))]
        if tag == 9:
            return [("shape", self.shape()) for _ in range(self.take("I"))]
        if tag == 10:
            return self.graph()
        if tag == 11:
            return self.tensor()
        if tag == 12:
            return HostObject()
        return None  # null graph / null tensor

    def pairs(self) -> List[Tuple[int, int]]:
        return [(self.take("i"), self.take("i")) for _ in range(self.take("I"))]

    def ints(self) -> List[int]:
        return [self.take("i") for _ in range(self.take("I"))]

    def graph(self) -> Graph:
        g = Graph(self.text())
        for _ in range(self.take("I")):
            op, name = self.text(), self.text()
            inputs, control = self.pairs(), self.ints()
            attrs = {}
            for _ in range(self.take("I")):
                key = self.text()
                attrs[key] = self.attr()
            outs = [Spec(self.dtype(), self.shape()) for _ in range(self.take("I"))]
            self.text()  # defined_at
            g.nodes.append(Node(op, name, inputs, control, attrs, outs))
        g.args, g.captures, g.outputs = self.ints(), self.ints(), self.pairs()
        self.ints()  # stateful nodes
        return g


def read(data: bytes) -> Graph:
    if data[:8] != b"FNGRAPH\0":
        raise ValueError("not a serialized fn graph")
    r = _Reader(data)
    r.p = 12
    return r.graph()
