"""``fn.print`` (``tf.print``): prints on every execution, eagerly or inside a graph."""

from __future__ import annotations

import sys
from typing import Any, List, Optional

from fn import _core, nest
from fn._tensor import printing
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged._printing import RaggedText


class _PyValue:
    """A Python value (e.g. a NumPy array the user passed) printed by its repr, as tf.print
    prints non-tensors; printing.format_print would otherwise format arrays as tensors."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def _leaves_and_rebuild(inputs: tuple, summarize: Optional[int] = None):
    flat: List[Any] = [
        (_PyValue(x) if type(x).__module__ == "numpy" or isinstance(x, bytes) else x)
        for x in nest.flatten(list(inputs))
    ]
    # A RaggedTensor is printed from its components (flat values and row splits).
    parts = [
        [x.flat_values, *x.nested_row_splits]
        if isinstance(x, RaggedTensor)
        else [x if _core.is_tensor(x) else x.__fn_tensor__(None)]
        if (_core.is_tensor(x) or hasattr(x, "__fn_tensor__"))
        else []
        for x in flat
    ]
    tensors = [t for p in parts for t in p]

    def rebuild(values: list) -> list:
        it = iter(values)
        filled: List[Any] = []
        for x, p in zip(flat, parts):
            if isinstance(x, RaggedTensor):
                filled.append(RaggedText([next(it) for _ in p], summarize))
            else:
                filled.append(next(it) if p else x)
        return nest.pack_sequence_as(list(inputs), filled)

    return tensors, rebuild


def _resolve_stream(stream: Any) -> Any:
    # Strings name the stream as TF allows ("stdout"/"stderr"); None means sys.stderr at run time,
    # so redirected streams (Jupyter, pytest) see the text.
    if stream is None or stream == "stderr":
        return sys.stderr
    if stream == "stdout":
        return sys.stdout
    if isinstance(stream, str) and stream.startswith("file://"):
        return open(stream[len("file://") :], "a")  # closed below
    if stream is sys.__stderr__:
        return sys.stderr
    if stream is sys.__stdout__:
        return sys.stdout
    return stream


def print_(
    *inputs: Any,
    output_stream: Any = None,
    summarize: Optional[int] = 3,
    sep: str = " ",
    end: str = "\n",
    name: Optional[str] = None,
) -> Any:
    """``tf.print``: formats like TensorFlow (floats to 9 significant digits, ``...`` summaries)
    and writes to ``output_stream`` (default: the current ``sys.stderr``) on every execution."""
    tensors, rebuild = _leaves_and_rebuild(inputs, summarize)

    def emit(*values: Any) -> None:
        arrays = [v.numpy() for v in values]
        text = printing.format_print(tuple(rebuild(arrays)), sep=sep, end=end, summarize=summarize)
        stream = _resolve_stream(output_stream)
        stream.write(text)
        if isinstance(output_stream, str) and output_stream.startswith("file://"):
            stream.close()
        elif hasattr(stream, "flush"):
            stream.flush()

    if _core.executing_eagerly():
        emit(*tensors)
        return None
    # TF returns the print Operation here; fn has no Operation values, so None (as eagerly),
    # which also lets `fn.cond(p, lambda: fn.print(...), lambda: None)` match its branches.
    _core.execute("PyCall", tensors, {"callable": emit, "Tout": []}, name or "PrintV2")
    return None
