"""The text produced by ``tf.print`` (TensorFlow 2.21), as a pure function.

`format_print(inputs, sep, end, summarize)` returns exactly the text that
``tf.print(*inputs, sep=sep, end=end, summarize=summarize)`` writes, given
inputs in which every tensor has already been turned into a NumPy array, a
NumPy scalar, or (for a scalar string tensor) a ``bytes`` object.  Everything
else is a Python value and is printed the way tf.print prints Python values.

How tf.print builds its output (reproduced here):

* A single input that is a scalar string tensor is written raw.
* Otherwise each input becomes a template: a Python ``str`` is its own
  template; anything else is ``pprint.pformat`` of the input with every tensor
  leaf replaced by a placeholder string (so dict keys are sorted, long
  structures wrap at 80 columns counting the placeholder, not the tensor).
  The templates are joined with `sep`, quotes around placeholders are removed,
  and the placeholders are filled with the tensors (in ``nest.flatten`` order)
  formatted by TF's ``SummarizeValue(print_v2=True)``.
* Tensor formatting: floats with up to 9 significant digits (float32, float16,
  bfloat16) or 17 (float64), shortest of %.6g/%.9g (%.15g/%.17g) that
  round-trips; subnormals print as (signed) 0; NaN keeps its sign (``-nan``);
  bools print as 1/0; complex numbers as ``?``; strings quoted and C-escaped
  (UTF-8 bytes kept); dimensions longer than ``2 * summarize`` elided with
  ``...``.

Known, deliberate differences: NumPy arrays/scalars and ``bytes`` given by the
user as Python values are indistinguishable from converted tensors and print
as tensors; bytes that are not valid UTF-8 are rendered ``\\xNN``
(backslashreplace) since the result is a ``str``.
"""

from __future__ import annotations

import math
import pprint
import random
import re
import struct
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from fn import nest

__all__ = ["format_print", "format_tensor"]

_DEFAULT_SUMMARIZE = 3


# ---------------------------------------------------------------------------
# What counts as a tensor


def _is_tensor(x: Any) -> bool:
    """Tensors reach us as NumPy arrays / NumPy scalars / bytes."""
    return isinstance(x, (np.ndarray, np.generic, bytes))


def _as_array(x: Any) -> np.ndarray:
    if isinstance(x, bytes) and not isinstance(x, np.generic):
        a = np.empty((), dtype=object)
        a[()] = x
        return a
    return np.asarray(x)


def _is_string_dtype(dtype: np.dtype) -> bool:
    return dtype.kind in "SUO"


def _is_scalar_string(x: Any) -> bool:
    if isinstance(x, bytes):
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return x.ndim == 0 and _is_string_dtype(x.dtype)
    return False


# ---------------------------------------------------------------------------
# Element formatting (TF's strings::FloatToBuffer / DoubleToBuffer / CEscape)

_F32_TINY = float(np.finfo(np.float32).tiny)
_F64_TINY = float(np.finfo(np.float64).tiny)
_pack_f32 = struct.Struct("<f")


def _to_f32(v: float) -> float:
    """Round a Python float to the nearest float32 (like strtof would)."""
    try:
        return _pack_f32.unpack(_pack_f32.pack(v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _special(v: float) -> Optional[str]:
    if v != v:
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if v == math.inf:
        return "inf"
    if v == -math.inf:
        return "-inf"
    return None


def _fmt_float32(v: float) -> str:
    # v is a float32 value held in a Python float.
    s = _special(v)
    if s is not None:
        return s
    if abs(v) < _F32_TINY:  # TF formats with denormals flushed to zero
        v = math.copysign(0.0, v)
    s = "%.6g" % v
    if _to_f32(float(s)) != v:
        s = "%.9g" % v
    return s


def _fmt_float64(v: float) -> str:
    s = _special(v)
    if s is not None:
        return s
    if abs(v) < _F64_TINY:
        v = math.copysign(0.0, v)
    s = "%.15g" % v
    if float(s) != v:
        s = "%.17g" % v
    return s


# C-escaping of string elements, keeping bytes >= 0x80 (absl Utf8SafeCEscape).
_ESCAPES = {
    ord("\n"): b"\\n",
    ord("\r"): b"\\r",
    ord("\t"): b"\\t",
    ord('"'): b'\\"',
    ord("'"): b"\\'",
    ord("\\"): b"\\\\",
}
_NEEDS_ESCAPE = re.compile(rb"[\x00-\x1f\x7f\"'\\]")


def _escape_byte(m: "re.Match[bytes]") -> bytes:
    c = m.group()[0]
    return _ESCAPES.get(c) or b"\\%03o" % c


def _to_bytes(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    return str(v).encode("utf-8")


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "backslashreplace")


def _fmt_string(v: Any) -> str:
    b = _to_bytes(v)
    if _NEEDS_ESCAPE.search(b):
        b = _NEEDS_ESCAPE.sub(_escape_byte, b)
    return '"' + _decode(b) + '"'


def _element_formatter(dtype: np.dtype) -> Callable[[np.ndarray], List[str]]:
    """A function mapping a (flat) array of this dtype to element strings."""
    kind = dtype.kind
    if kind == "b":
        return lambda a: ["1" if x else "0" for x in a.tolist()]
    if kind in "iu":
        return lambda a: [str(x) for x in a.tolist()]
    if kind == "f":
        if dtype.itemsize >= 8:
            return lambda a: [_fmt_float64(x) for x in a.astype(np.float64).tolist()]
        # float32, float16 (TF widens half to float before formatting).
        return lambda a: [_fmt_float32(x) for x in a.astype(np.float32).tolist()]
    if _is_string_dtype(dtype):
        return lambda a: [_fmt_string(x) for x in a.tolist()]
    if dtype.name == "bfloat16":  # ml_dtypes.bfloat16 (kind 'V')
        return lambda a: [_fmt_float32(x) for x in a.astype(np.float32).tolist()]
    return lambda a: [str(x) for x in a.tolist()]


# ---------------------------------------------------------------------------
# Tensor layout (TF's Tensor::SummarizeValue with print_v2=true)


def format_tensor(value: Any, summarize: Optional[int] = _DEFAULT_SUMMARIZE) -> str:
    """Format one tensor value as ``tf.print`` does (mirrors TF's
    ``Tensor::SummarizeValue(summarize, print_v2=true)``).

    Shows at most `summarize` leading and trailing entries of every dimension
    longer than ``2 * summarize``; ``summarize < 0`` shows everything.
    """
    a = _as_array(value)
    if summarize is None:
        summarize = _DEFAULT_SUMMARIZE
    n = a.size
    limit = n if summarize < 0 else min(summarize, n)
    kind = a.dtype.kind
    if kind == "b" and limit == 0:
        return ""  # TF prints nothing for a bool tensor when nothing is shown
    if kind == "c":
        # TF has no v2 printer for complex: a flat list of "?", first `limit`.
        if a.ndim == 0:
            return "?" if limit else "..."
        return "[" + " ".join(["?"] * limit) + ("..." if n > limit else "") + "]"
    fmt = _element_formatter(a.dtype)
    if a.ndim == 0:
        return fmt(a.reshape(1))[0] if limit else "..."
    # Per axis: None (all shown) or the number of leading entries kept before
    # the "..."; cut the array down to the entries that are shown (by slicing,
    # so nothing else is copied or formatted).
    cuts: List[Optional[int]] = []
    for axis, dim in enumerate(a.shape):
        if dim > 2 * limit:
            cuts.append(limit)
            head = [slice(None)] * a.ndim
            tail = [slice(None)] * a.ndim
            head[axis] = slice(0, limit)
            tail[axis] = slice(dim - limit, dim)
            a = np.concatenate([a[tuple(head)], a[tuple(tail)]], axis=axis)
        else:
            cuts.append(None)
    strs = np.array(fmt(a.reshape(-1)), dtype=object).reshape(a.shape)
    return _layout(strs, cuts, 0, a.ndim)


def _join_cut(items: Sequence[str], cut: Optional[int], sep: str) -> str:
    if cut is None:
        return sep.join(items)
    # head entries, then "...", then tail entries, each preceded by sep.
    return sep.join(items[:cut]) + sep + "..." + "".join(sep + x for x in items[cut:])


def _layout(strs: np.ndarray, cuts: List[Optional[int]], depth: int, ndim: int) -> str:
    if depth == ndim - 1:
        return "[" + _join_cut(strs.tolist(), cuts[depth], " ") + "]"
    # Sub-blocks are separated by (rank - depth - 1) newlines and indented
    # to line up under the opening bracket.
    sep = "\n" * (ndim - depth - 1) + " " * (depth + 1)
    blocks = [_layout(strs[i], cuts, depth + 1, ndim) for i in range(strs.shape[0])]
    return "[" + _join_cut(blocks, cuts[depth], sep) + "]"


# ---------------------------------------------------------------------------
# tf.print


def _placeholder_for(text: str) -> str:
    """A placeholder that does not occur in `text` (TF extends ``{}`` with
    digits from ``random.Random(5)``; only its length can be observed, through
    pprint's line wrapping)."""
    placeholder = "{}"
    if placeholder in text:
        rng = random.Random(5)
        while placeholder in text:
            placeholder += str(rng.randint(0, 9))
    return placeholder


def format_print(
    inputs: Sequence[Any], sep: str = " ", end: str = "\n", summarize: Optional[int] = _DEFAULT_SUMMARIZE
) -> str:
    """Return what ``tf.print(*inputs, sep=sep, end=end, summarize=summarize)``
    writes (mirrors TF 2.21's ``tf.print`` / ``StringFormat`` / ``PrintV2``).

    Tensors in `inputs` (at top level or inside lists/tuples/dicts/namedtuples)
    must already be NumPy arrays, NumPy scalars, or ``bytes`` (scalar string
    tensors); every other object is a Python value.  ``summarize=None`` means
    3; a negative `summarize` prints every element.
    """
    if summarize is None:
        summarize = _DEFAULT_SUMMARIZE
    inputs = tuple(inputs)
    if len(inputs) == 1 and _is_scalar_string(inputs[0]):
        # tf.print(scalar_string_tensor) writes the string itself.
        return _decode(_to_bytes(_as_array(inputs[0])[()])) + end

    # The text of the inputs without their tensors, to choose a placeholder
    # that cannot clash with it (repr of a str keeps "{}" and digits intact).
    free_parts = []
    for x in inputs:
        if _is_tensor(x):
            continue
        if isinstance(x, str):
            free_parts.append(x)
        elif nest.is_nested(x):
            free_parts.append(pprint.pformat(nest.map_structure(lambda v: "" if _is_tensor(v) else v, x)))
        else:
            free_parts.append(pprint.pformat(x))
    placeholder = _placeholder_for(" ".join(free_parts))
    quoted = "'" + placeholder + "'"

    tensors: List[Any] = []
    templates: List[str] = []
    for x in inputs:
        if _is_tensor(x):
            tensors.append(x)
            templates.append(placeholder)
        elif isinstance(x, str):
            templates.append(x)
        else:
            flat = nest.flatten(x)
            leaves = []
            for leaf in flat:
                if _is_tensor(leaf):
                    tensors.append(leaf)
                    leaves.append(placeholder)
                else:
                    leaves.append(leaf)
            # pformat quotes the placeholders; unquote them in this template
            # only (a quote coming from `sep` or a str input stays).
            templates.append(pprint.pformat(nest.pack_sequence_as(x, leaves)).replace(quoted, placeholder))
    template = sep.join(templates)

    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(tensors):
        raise ValueError(
            f"The template expects {len(pieces) - 1} tensors, but the inputs "
            f"only has {len(tensors)}. Please ensure the number of placeholders "
            "in template matches inputs length."
        )
    out = [pieces[0]]
    for t, piece in zip(tensors, pieces[1:]):
        out.append(format_tensor(t, summarize))
        out.append(piece)
    out.append(end)
    return "".join(out)
