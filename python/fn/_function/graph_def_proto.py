"""TensorFlow's GraphDef protos as fn prints them: ``GraphDef``, ``NodeDef``, ``AttrValue`` and the
text-protobuf helpers (``node { name: "x" op: "Placeholder" attr { ... } } versions { ... }``)
that ``graph_def`` and ``graph_def_library`` write with."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from fn import version
from fn._tensor.tensor_shape import TensorShape
from fn.dtypes import DType

_DT = {
    "float32": "DT_FLOAT",
    "float64": "DT_DOUBLE",
    "float16": "DT_HALF",
    "bfloat16": "DT_BFLOAT16",
    "int8": "DT_INT8",
    "int16": "DT_INT16",
    "int32": "DT_INT32",
    "int64": "DT_INT64",
    "uint8": "DT_UINT8",
    "uint16": "DT_UINT16",
    "uint32": "DT_UINT32",
    "uint64": "DT_UINT64",
    "bool": "DT_BOOL",
    "string": "DT_STRING",
    "resource": "DT_RESOURCE",
    "variant": "DT_VARIANT",
    "complex64": "DT_COMPLEX64",
    "complex128": "DT_COMPLEX128",
}
_VAL = {
    "float32": "float_val",
    "float64": "double_val",
    "float16": "half_val",
    "int8": "int_val",
    "int16": "int_val",
    "int32": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "bool": "bool_val",
    "string": "string_val",
}


# Ops whose attrs already say every type (no ``T``).
def _quote(b: Any) -> str:
    """A protobuf text string literal (C escapes, octal for other bytes)."""
    if isinstance(b, str):
        b = b.encode()
    out = []
    for c in bytes(b):
        ch = chr(c)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif 32 <= c < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % c)
    return '"' + "".join(out) + '"'


def _num(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f == int(f) and abs(f) < 1e16:
            return str(int(f))
        return np.format_float_positional(v, trim="-") if abs(f) >= 1e-4 else repr(f)
    return str(int(v))


def _shape_lines(shape: Any, ind: str) -> List[str]:
    dims = getattr(shape, "dims", None) if shape is not None else None
    if dims is None:
        return [ind + "unknown_rank: true"]
    return [f"{ind}dim {{\n{ind}  size: {-1 if d is None else int(d)}\n{ind}}}" for d in dims]


def _block(name: str, lines: List[str], ind: str) -> str:
    body = "\n".join(lines)
    return f"{ind}{name} {{\n{body}\n{ind}}}" if lines else f"{ind}{name} {{\n{ind}}}"


class AttrValue:
    """One attr (``tf.compat.v1.AttrValue``): the Python value and how protobuf text shows it."""

    def __init__(self, value: Any, kind: Optional[str] = None) -> None:
        self.value = value
        self._kind = kind

    def _lines(self, ind: str) -> List[str]:
        v = self.value
        if self._kind == "func":
            return [_block("func", [f"{ind}  name: {_quote(v)}"], ind)]
        if self._kind == "s" or isinstance(v, (str, bytes)):
            return [f"{ind}s: {_quote(v)}"]
        if isinstance(v, bool):
            return [f"{ind}b: {_num(v)}"]
        if isinstance(v, int):
            return [f"{ind}i: {v}"]
        if isinstance(v, float):
            return [f"{ind}f: {_num(v)}"]
        if isinstance(v, DType):
            return [f"{ind}type: {_DT.get(v.name, v.name)}"]
        if isinstance(v, TensorShape):
            return [_block("shape", _shape_lines(v, ind + "  "), ind)]
        if isinstance(v, list):
            inner = []
            for x in v:
                if isinstance(x, DType):
                    inner.append(f"{ind}  type: {_DT.get(x.name, x.name)}")
                elif isinstance(x, TensorShape):
                    inner.append(_block("shape", _shape_lines(x, ind + "    "), ind + "  "))
                elif isinstance(x, float):
                    inner.append(f"{ind}  f: {_num(x)}")
                else:
                    inner.append(f"{ind}  i: {int(x)}")
            return [_block("list", inner, ind)]
        if hasattr(v, "numpy") and hasattr(v, "dtype"):
            return [_block("tensor", _tensor_lines(v, ind + "  "), ind)]
        if hasattr(v, "num_nodes"):
            return [_block("func", [f"{ind}  name: {_quote(v.name)}"], ind)]
        return [f"{ind}s: {_quote(str(v))}"]

    def __str__(self) -> str:
        return "\n".join(self._lines("")) + "\n"

    __repr__ = __str__


def _tensor_lines(t: Any, ind: str) -> List[str]:
    name = t.dtype.name
    lines = [
        f"{ind}dtype: {_DT.get(name, name)}",
        _block("tensor_shape", [ln for ln in _shape_lines(t.shape, ind + "  ") if t.shape.rank != 0], ind),
    ]
    arr = np.asarray(t.numpy())
    field = _VAL.get(name)
    if name == "string":
        lines += [f"{ind}string_val: {_quote(x)}" for x in arr.reshape(-1)]
    elif arr.size == 1 or (arr.size and field and (arr == arr.reshape(-1)[0]).all()):
        lines.append(f"{ind}{field}: {_num(arr.reshape(-1)[0])}")
    elif arr.size:
        lines.append(f"{ind}tensor_content: {_quote(arr.tobytes())}")
    return lines


class NodeDef:
    """One node of ``Graph.as_graph_def()`` (``tf.compat.v1.NodeDef``'s fields)."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name: str, op: str, inputs: List[str], attr: Dict[str, AttrValue]) -> None:
        self.name, self.op, self.input, self.attr, self.device = name, op, inputs, attr, ""

    def _lines(self, ind: str) -> List[str]:
        lines = [f"{ind}name: {_quote(self.name)}", f"{ind}op: {_quote(self.op)}"]
        lines += [f"{ind}input: {_quote(i)}" for i in self.input]
        if self.device:
            lines.append(f"{ind}device: {_quote(self.device)}")
        for k, v in self.attr.items():
            value = _block("value", v._lines(ind + "    "), ind + "  ")
            lines.append(f"{ind}attr {{\n{ind}  key: {_quote(k)}\n{value}\n{ind}}}")
        return lines

    def __str__(self) -> str:
        return "\n".join(self._lines("")) + "\n"

    def __repr__(self) -> str:
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """``Graph.as_graph_def()``: the nodes, in order; prints as TensorFlow's text protobuf."""

    def __init__(self, node: List[NodeDef], functions: Optional[List[Any]] = None) -> None:
        self.node = node
        self._functions = functions or []

    def __str__(self) -> str:
        parts = [_block("node", n._lines("  "), "") for n in self.node]
        versions = [f"  producer: {version.GRAPH_DEF_VERSION}"]
        if self._functions:
            parts.append(_block("library", [_block("function", f.lines("  "), "  ") for f in self._functions], ""))
            versions.append("  min_consumer: 12")
        parts.append(_block("versions", versions, ""))
        return "\n".join(parts) + "\n"

    def __repr__(self) -> str:
        return str(self)
