"""``fn.strings`` (``tf.strings``): join, length, lower/upper, to_number, as_string (C++ ops),
and split, regex_replace, format (host calls into Python, so they work inside Functions too).

``regex_replace`` and ``regex_full_match`` run RE2 (``google-re2``), the library TF's kernels
use, so patterns mean what they mean in TF (POSIX classes, ``\\pL``, no look-around). ``split`` returns a dense 1-D tensor for a scalar input;
split of a 1-D tensor gives a RaggedTensor in TF, which fn does not have (NotImplementedError).
"""

from __future__ import annotations

import builtins  # `len` is a parameter name of substr (TF's signature)
from typing import Any, List, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import convert_to_tensor, expand_dims, fill, unstack
from fn._ops.op_call import run_op as _run
from fn._ops.op_errors import attr_not_allowed
from fn.dtypes import as_dtype, bool_, float32, int32, string
from fn.errors import InvalidArgumentError, OutOfRangeError
from fn._ragged._ragged_tensor import RaggedTensor
from fn._tensor.tensor_shape import TensorShape
from fn._ragged._strings import ragged_pieces
from fn._tensor import printing as _printing

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "reduce_join",
    "length",
    "lower",
    "regex_full_match",
    "regex_replace",
    "split",
    "substr",
    "to_hash_bucket_fast",
    "to_number",
    "unicode_decode",
    "unicode_split",
    "upper",
]


def _strings(x: Any, op: str = "the op") -> Any:
    if not _core.is_tensor(x):
        return _core.convert_to_tensor(x, string)
    if x.dtype != string:
        # TF's classes for a tensor of another dtype: the kernel's check eagerly, the op
        # definition's check while tracing
        if x._is_eager:
            raise InvalidArgumentError(
                None,
                None,
                f"cannot compute {op} as input #0(zero-based) was expected to be "
                f"a string tensor but is a {x.dtype.name} tensor",
            )
        raise TypeError(
            f"Input 'input' of '{op}' Op has type {x.dtype.name} that does not match expected type of string."
        )
    return x


def _host(func: Any, inputs: list, shape: Any, name: str, dtype: Any = string) -> Any:
    """A PyCall op returning one ``dtype`` tensor (``shape``: its static shape when known)."""

    def call(*args: Any) -> list:
        # A scalar string tensor's numpy() is bytes: make every value an array.
        return [func(*[np.asarray(a.numpy(), dtype=object) if a.dtype == string else a.numpy() for a in args])]

    attrs = {"callable": call, "Tout": [dtype]}
    if shape is not None:
        attrs["Tout_shapes"] = [shape]
    return _core.execute("PyCall", inputs, attrs, name)[0]


def join(inputs: Any, separator: str = "", name: Optional[str] = None) -> Any:
    """``tf.strings.join``: elementwise concatenation with ``separator`` (scalars broadcast)."""
    if not isinstance(separator, (str, bytes)):  # TF's attr conversion, before the inputs
        raise TypeError(f"Expected string for argument 'separator' not {separator!r}.")
    tensors = [_strings(x) for x in inputs]
    return _run("StringJoin", tensors, {"separator": separator, "N": len(tensors)}, name)


def reduce_join(
    inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "", name: Optional[str] = None
) -> Any:
    """``tf.strings.reduce_join``: joins the strings along ``axis`` with ``separator``; the first
    listed axis varies fastest in the joined order (all axes, row-major, when None). Done as
    StringJoin over the slices of each reduced axis."""
    x = _strings(inputs)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("tf.strings.reduce_join needs an input of known rank in fn")
    axes = list(builtins.range(rank - 1, -1, -1)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not -builtins.max(rank, 1) <= a < builtins.max(rank, 1):
            raise OutOfRangeError(None, None, f"Invalid reduction dimension {a} for input with {rank} dimension(s)")
    axes = [a % rank for a in axes] if rank else []
    dims = x.shape.as_list()
    if builtins.any(dims[a] is None for a in axes):
        raise ValueError("tf.strings.reduce_join needs the reduced dimensions known in fn")
    if builtins.any(dims[a] == 0 for a in axes):  # nothing to join: empty strings
        kept = [1 if i in axes else d for i, d in enumerate(dims) if keepdims or i not in axes]
        return fill(kept, convert_to_tensor("", string))
    removed: List[int] = []
    for a in axes:
        at = a if keepdims else a - builtins.sum(1 for r in removed if r < a)
        x = join(unstack(x, axis=at), separator=separator)
        if keepdims:
            x = expand_dims(x, at)
        removed.append(a)
    return x


def length(input: Any, unit: str = "BYTE", name: Optional[str] = None) -> Any:
    """``tf.strings.length``: int32 lengths in bytes or (``unit='UTF8_CHAR'``) characters."""
    return _run("StringLength", [_strings(input, "StringLength")], {"unit": unit}, name)


def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE", name: Optional[str] = None) -> Any:
    """``tf.strings.substr``: ``len`` bytes (or UTF-8 characters) from ``pos`` of each string
    (``pos`` < 0 counts from the end; ``pos`` and ``len`` broadcast against ``input``)."""

    x = _strings(input)
    p, n = (v if _core.is_tensor(v) else convert_to_tensor(v, int32) for v in (pos, len))
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise attr_not_allowed("Substr", "unit", unit, ("BYTE", "UTF8_CHAR"))

    def f(a: np.ndarray, pa: Any, na: Any) -> np.ndarray:
        a, pa, na = np.broadcast_arrays(a, np.asarray(pa), np.asarray(na))
        out = np.empty(a.shape, dtype=object)
        for i, (b, q, k) in enumerate(zip(a.reshape(-1), pa.reshape(-1), na.reshape(-1))):
            seq, q = bytes(b), int(q)
            if unit == "UTF8_CHAR":
                span = _utf8_span(seq, q, int(k))
                if span is None:
                    raise InvalidArgumentError(None, None, f"pos {q} out of range for string at index {i}")
                out.reshape(-1)[i] = seq[span[0] : span[1]]
                continue
            if q > builtins.len(seq) or q < -builtins.len(seq):
                raise InvalidArgumentError(
                    None, None, f"pos {q} out of range for string b'{seq.decode('latin-1')}' at index {i}"
                )
            q = q if q >= 0 else builtins.len(seq) + q
            k = int(k)  # a negative length is a huge size_t in TF's substr: to the end
            out.reshape(-1)[i] = seq[q:] if k < 0 else seq[q : q + k]
        return out

    return _host(f, [x, p, n], x.shape if p.shape.rank == 0 and n.shape.rank == 0 else None, name or "Substr")


def _utf8_step(b: bytes, n: int, pos: int, back: bool) -> Optional[int]:
    """TF's Forward/BackNUTF8CharPositions: ``pos`` moved by ``n`` characters, a character being a
    byte that is not a continuation byte (10xxxxxx) and those after it (no decoding: invalid UTF-8
    counts byte by byte, as TF's kernels do); None when the string ends first."""
    counted, size = 0, builtins.len(b)
    while counted < n and (pos > 0 if back else pos < size):
        pos += -1 if back else 1
        while (pos > 0 if back else pos < size) and b[pos] & 0xC0 == 0x80:
            pos += -1 if back else 1
        counted += 1
    return pos if counted == n else None


def _utf8_span(b: bytes, pos: int, length: int) -> Optional[tuple]:
    """The bytes [start, end) of TF's Substr(unit='UTF8_CHAR'), or None for a ``pos`` out of range
    (TF's UpdatePositive/NegativePosAndLenForUtf8)."""
    if pos >= 0:
        start = _utf8_step(b, pos, 0, back=False)
        if start is None:
            return None
        end = _utf8_step(b, length, start, back=False)
        if end is None:  # the length is capped at the end of the string
            end = builtins.len(b) if length > 0 else start
        return start, end
    skip = max(-pos - length, 0)
    end = _utf8_step(b, skip, builtins.len(b), back=True)
    start = None if end is None else _utf8_step(b, -pos - skip, end, back=True)
    return None if start is None else (start, end)


def _utf8_case(x: Any, upper_case: bool, name: Optional[str]) -> Any:
    def f(a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=object)
        for i, v in np.ndenumerate(a):
            s = bytes(v).decode("utf-8", "replace")
            out[i] = (s.upper() if upper_case else s.lower()).encode("utf-8")
        return out

    return _host(f, [x], x.shape, name or ("StringUpper" if upper_case else "StringLower"))


def lower(input: Any, encoding: str = "", name: Optional[str] = None) -> Any:
    """``tf.strings.lower``: ASCII letters lowercased (all letters with ``encoding='utf-8'``)."""
    x = _strings(input)
    if encoding.lower().replace("-", "") == "utf8":
        return _utf8_case(x, False, name)
    return _run("StringLower", [x], {"encoding": encoding}, name)


def upper(input: Any, encoding: str = "", name: Optional[str] = None) -> Any:
    """``tf.strings.upper``: ASCII letters uppercased (all letters with ``encoding='utf-8'``)."""
    x = _strings(input)
    if encoding.lower().replace("-", "") == "utf8":
        return _utf8_case(x, True, name)
    return _run("StringUpper", [x], {"encoding": encoding}, name)


def to_hash_bucket_fast(input: Any, num_buckets: int, name: Optional[str] = None) -> Any:
    """``tf.strings.to_hash_bucket_fast``: FarmHash's Fingerprint64 of each string modulo
    ``num_buckets`` (int64; TF's bucket ids)."""
    return _run(
        "StringToHashBucketFast",
        [_strings(input, "StringToHashBucketFast")],
        {"num_buckets": num_buckets},
        name,
    )


def to_number(input: Any, out_type: Any = float32, name: Optional[str] = None) -> Any:
    """``tf.strings.to_number``: parses each string (``InvalidArgumentError`` when it is not a
    number of ``out_type``)."""
    return _run("StringToNumber", [_strings(input, "StringToNumber")], {"out_type": as_dtype(out_type)}, name)


def as_string(
    input: Any,
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: Optional[str] = None,
) -> Any:
    """``tf.strings.as_string``: numbers and bools as strings (floats as ``%f`` unless
    ``scientific``/``shortest``; ``width`` padded with ``fill``)."""
    attrs = {
        "precision": int(precision),
        "scientific": bool(scientific),
        "shortest": bool(shortest),
        "width": int(width),
        "fill": fill,
    }
    return _run("AsString", [convert_to_tensor(input)], attrs, name)


def split(input: Any, sep: Optional[str] = None, maxsplit: int = -1, name: Optional[str] = None) -> Any:
    """``tf.strings.split``: a scalar's pieces as a 1-D string tensor; a tensor of rank >= 1 (or a
    RaggedTensor) gives a RaggedTensor of each string's pieces (``sep=None``: runs of whitespace,
    empty pieces dropped)."""

    if _core.is_tensor(input) and input.dtype != string:  # TF converts it: conversion's ValueError
        raise ValueError(
            f"Tensor conversion requested dtype string for Tensor with dtype {input.dtype.name}: {input!r}"
        )
    x = input if isinstance(input, RaggedTensor) else _strings(input)
    sep_b = None if sep is None or sep == "" else (sep.encode() if isinstance(sep, str) else bytes(sep))
    return _pieces(x, lambda v: v.split(sep_b, maxsplit), name or "StringSplit")


def _scalar(input: Any, what: str) -> Any:
    return input if isinstance(input, RaggedTensor) else _strings(input)


def _pieces(x: Any, pieces: Any, name: str, dtype: Any = string) -> Any:
    """A 1-D tensor of ``pieces(bytes)`` (a list) from a scalar string, computed when it runs; a
    RaggedTensor of them for a tensor of rank >= 1."""
    if getattr(x, "_rank", None) != 0:
        return ragged_pieces(x, pieces, name, dtype)

    def f(a: np.ndarray) -> np.ndarray:
        out = pieces(bytes(a[()]))
        return np.array(out, dtype=object if dtype == string else dtype.as_numpy_dtype).reshape([len(out)])

    return _host(f, [x], TensorShape([None]), name, dtype)


def _decode(data: bytes, encoding: str, errors: str, replacement_char: int) -> str:
    if errors not in ("replace", "ignore", "strict"):
        raise ValueError(f"errors must be one of 'strict', 'replace', 'ignore'; got {errors!r}")
    import codecs

    try:  # ICU's converter names; unknown ones are the kernel's InvalidArgumentError in TF
        codec = codecs.lookup(encoding.replace("-", "").lower())
    except LookupError:
        raise InvalidArgumentError(None, None, f"Could not create converter for input encoding: {encoding}") from None
    try:
        text = codec.decode(data, errors)[0]
    except UnicodeDecodeError:  # errors='strict'
        raise InvalidArgumentError(None, None, "Invalid formatting on input string") from None
    return text.replace("\ufffd", chr(replacement_char)) if errors == "replace" else text


def bytes_split(input: Any, name: Optional[str] = None) -> Any:
    """``tf.strings.bytes_split`` of a scalar: a 1-D string tensor of its single bytes."""
    return _pieces(
        _scalar(input, "bytes_split"), lambda v: [v[i : i + 1] for i in range(len(v))], name or "StringSplit"
    )


def unicode_split(
    input: Any, input_encoding: str, errors: str = "replace", replacement_char: int = 65533, name: Optional[str] = None
) -> Any:
    """``tf.strings.unicode_split`` of a scalar: a 1-D tensor of its characters, each encoded."""
    return _pieces(
        _scalar(input, "unicode_split"),
        lambda v: [c.encode(input_encoding) for c in _decode(v, input_encoding, errors, replacement_char)],
        name or "UnicodeSplit",
    )


def unicode_decode(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.strings.unicode_decode`` of a scalar: its code points as a 1-D int32 tensor."""
    return _pieces(
        _scalar(input, "unicode_decode"),
        lambda v: [ord(c) for c in _decode(v, input_encoding, errors, replacement_char)],
        name or "UnicodeDecode",
        int32,
    )


def _re2_rewrite(rewrite: str):
    """RE2's rewrite string as a function of a match: ``\\N`` (N a digit) is group N, ``\\\\`` a
    backslash; everything else is literal."""
    parts: List[Any] = []
    i = 0
    text = ""
    while i < len(rewrite):
        ch = rewrite[i]
        if ch == "\\" and i + 1 < len(rewrite):
            nxt = rewrite[i + 1]
            if nxt.isdigit():
                parts.append(text)
                parts.append(int(nxt))
                text = ""
                i += 2
                continue
            if nxt == "\\":
                text += "\\"
                i += 2
                continue
            raise ValueError(f"invalid rewrite pattern: {rewrite}")
        text += ch
        i += 1
    parts.append(text)

    def apply(m: Any) -> bytes:
        out = b""
        for p in parts:
            out += p.encode() if isinstance(p, str) else (m.group(p) or b"")
        return out

    return apply


def _re2_compile(pattern: Any, op: str) -> Any:
    """``pattern`` compiled by RE2 (the library TF's regex kernels use, so its syntax: POSIX classes,
    ``\\pL``, no look-around), UTF-8; a bad pattern is TF's InvalidArgumentError."""
    import re2  # google-re2: imported on first use, keeps `import fn` fast

    if _core.is_tensor(pattern):
        pattern = bytes(pattern.numpy())
    text = pattern.decode() if isinstance(pattern, bytes) else str(pattern)
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(text.encode(), options)
    except re2.error as e:
        why = e.args[0].decode() if e.args and isinstance(e.args[0], bytes) else str(e)
        from fn.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, f"Invalid pattern: {text}, error: {why} [Op:{op}]") from None


def regex_replace(
    input: Any, pattern: Any, rewrite: Any, replace_global: bool = True, name: Optional[str] = None
) -> Any:
    """``tf.strings.regex_replace``: ``pattern`` (RE2 syntax) matches replaced by ``rewrite``
    (``\\1``: group 1), every match or (``replace_global=False``) the first."""
    x = _strings(input)
    if _core.is_tensor(rewrite):
        rewrite = bytes(rewrite.numpy()).decode()
    rewrite = rewrite.decode() if isinstance(rewrite, bytes) else rewrite
    regex = _re2_compile(pattern, "StaticRegexReplace")
    repl = _re2_rewrite(rewrite)
    count = 0 if replace_global else 1

    def f(a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=object)
        for i, v in np.ndenumerate(a):
            out[i] = regex.sub(repl, bytes(v), count=count)
        return out

    return _host(f, [x], x.shape, name or "StaticRegexReplace")


def regex_full_match(input: Any, pattern: Any, name: Optional[str] = None) -> Any:
    """``tf.strings.regex_full_match``: whether each string matches ``pattern`` (RE2) as a whole."""
    x = _strings(input)
    regex = _re2_compile(pattern, "StaticRegexFullMatch")

    def f(a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=bool)
        for i, v in np.ndenumerate(a):
            out[i] = regex.fullmatch(bytes(v)) is not None
        return out

    return _host(f, [x], x.shape, name or "StaticRegexFullMatch", dtype=bool_)


def format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3, name: Optional[str] = None) -> Any:
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by a tensor
    formatted as ``tf.print`` formats it (``summarize`` entries per dimension end)."""

    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    n = template.count(placeholder)
    if n != len(inputs):
        raise ValueError(
            f"The template expects {n} tensors, but the inputs only has {len(inputs)}. Please ensure "
            "the number of placeholders in template matches inputs length."
        )
    tensors = [x if _core.is_tensor(x) else convert_to_tensor(x) for x in inputs]
    pieces = template.split(placeholder)

    def f(*arrays: np.ndarray) -> np.ndarray:
        out = pieces[0]
        for a, rest in zip(arrays, pieces[1:]):
            out += _printing.format_tensor(a, summarize) + rest
        return np.array(out.encode(), dtype=object)

    return _host(f, tensors, TensorShape([]), name or "StringFormat")


from fn._public import export as _export

_export(globals())
