"""How ``tf.print`` shows a RaggedTensor (TF's ``ragged_tensor_to_string``): nested lists with
", ", values as ``tf.strings.as_string`` writes them, strings quoted, ``...`` past ``summarize``."""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np


def _value_text(v: Any) -> str:
    if isinstance(v, (bytes, np.bytes_)):
        text = bytes(v).decode("utf-8", "replace")
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return "%f" % v
    return str(v)


def _join(items: List[str], summarize: Optional[int]) -> str:
    if summarize is not None and summarize >= 0 and len(items) > 2 * summarize:
        items = items[:summarize] + ["..."] + items[len(items) - summarize :]
    return "[" + ", ".join(items) + "]"


def _dense_text(a: np.ndarray, summarize: Optional[int]) -> str:
    if not isinstance(a, np.ndarray):
        return _value_text(a)
    if a.ndim == 0:
        return _value_text(a[()])
    return _join([_dense_text(a[i], summarize) for i in range(a.shape[0])], summarize)


def ragged_text(flat: np.ndarray, nested_splits: List[np.ndarray], summarize: Optional[int]) -> str:
    """The text of the RaggedTensor with these flat values and row splits (outermost first)."""
    rows: List[str] = [_dense_text(flat[i], summarize) for i in range(flat.shape[0])]
    for splits in reversed(nested_splits):
        rows = [_join(rows[splits[i] : splits[i + 1]], summarize) for i in range(len(splits) - 1)]
    return _join(rows, summarize)


class RaggedText:
    """A RaggedTensor's value inside tf.print's output (printed as TF prints it)."""

    def __init__(self, arrays: List[np.ndarray], summarize: Optional[int]) -> None:
        self.text = ragged_text(arrays[0], [np.asarray(s).tolist() for s in arrays[1:]], summarize)

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__
