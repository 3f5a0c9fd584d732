"""``Dataset.save`` / ``Dataset.load`` / ``Dataset.snapshot`` in fn's own format.

A saved dataset is a directory: ``fn_dataset.json`` (the element spec: nesting, dtypes, shapes)
and ``data.tfrecord``, one TFRecord record per element holding its flattened tensors (an
``.npz`` of arrays). TF's own snapshot format (protobuf metadata and its chunk files) is not
read or written.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Iterator as PyIterator, cast

import numpy as np

from fn import _core, errors
from fn.dtypes import as_dtype, string
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._data import registry, structure
from fn._data.dataset_ops import Dataset
from fn._io.tfrecord import TFRecordWriter, read_records

_SPEC = "fn_dataset.json"
_DATA = "data.tfrecord"


def _encode_spec(spec: Any) -> Any:
    if isinstance(spec, tuple) and not hasattr(spec, "_fields"):
        return {"tuple": [_encode_spec(s) for s in spec]}
    if isinstance(spec, tuple):
        return {
            "namedtuple": type(spec).__name__,
            "fields": list(cast(Any, spec)._fields),
            "items": [_encode_spec(s) for s in spec],
        }
    if isinstance(spec, dict):
        return {"dict": [[k, _encode_spec(v)] for k, v in spec.items()]}
    if not isinstance(spec, TensorSpec):
        raise NotImplementedError(f"fn's Dataset.save supports elements of tensors, not {spec!r}.")
    return {"dtype": spec.dtype.name, "shape": None if spec.shape.rank is None else spec.shape.as_list()}


def _decode_spec(obj: Any) -> Any:
    if "tuple" in obj:
        return tuple(_decode_spec(s) for s in obj["tuple"])
    if "namedtuple" in obj:
        import collections

        cls = collections.namedtuple(obj["namedtuple"], obj["fields"])  # type: ignore[misc]  # a saved name
        return cls(*[_decode_spec(s) for s in obj["items"]])
    if "dict" in obj:
        return {k: _decode_spec(v) for k, v in obj["dict"]}
    return TensorSpec(TensorShape(obj["shape"]), as_dtype(obj["dtype"]))


def _record(element: Any) -> bytes:
    buf = io.BytesIO()
    arrays = {
        f"a{i}": np.asarray(t.numpy(), dtype=object if t.dtype == string else None)
        for i, t in enumerate(structure.flatten(element))
    }
    np.savez(buf, allow_pickle=False, **{k: (v.astype(bytes) if v.dtype == object else v) for k, v in arrays.items()})
    return buf.getvalue()


def _element(record: bytes, spec: Any) -> Any:
    data = np.load(io.BytesIO(record), allow_pickle=False)
    specs = structure.flatten(spec)
    out = []
    for i, s in enumerate(specs):
        a = data[f"a{i}"]
        if s.dtype == string:
            a = a.astype(object)
        out.append(_core.to_eager(a, s.dtype))
    return structure.pack(spec, out)


@registry.register
def save(dataset: Dataset, path: str) -> None:
    """Writes every element of ``dataset`` under ``path`` (a directory, created)."""
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    meta = {"element_spec": _encode_spec(dataset.element_spec)}
    with TFRecordWriter(os.path.join(path, _DATA + ".tmp")) as w:
        for e in dataset._elements():
            w.write(_record(e))
    os.replace(os.path.join(path, _DATA + ".tmp"), os.path.join(path, _DATA))
    with open(os.path.join(path, _SPEC), "w") as f:
        json.dump(meta, f)


@registry.register
class LoadDataset(Dataset):
    """``Dataset.load``: the elements saved under ``path``."""

    _type_name = "_LoadDataset"

    def __init__(self, path: str, element_spec: Any = None) -> None:
        self._path = os.fspath(path)
        meta_path = os.path.join(self._path, _SPEC)
        if element_spec is None:
            if not os.path.exists(meta_path):
                raise errors.NotFoundError(None, None, f"Could not find metadata file [[{meta_path}]]")
            with open(meta_path) as f:
                element_spec = _decode_spec(json.load(f)["element_spec"])
        super().__init__((), element_spec)

    def _elements(self) -> PyIterator[Any]:
        for r in read_records(os.path.join(self._path, _DATA)):
            yield _element(r, self._element_spec)


@registry.register
class SnapshotDataset(Dataset):
    """``Dataset.snapshot``: the first complete iteration writes the elements under ``path``;
    later iterations (in this or another program) read them instead of the input."""

    _type_name = "_SnapshotDataset"

    def __init__(self, input_dataset: Dataset, path: str) -> None:
        super().__init__((input_dataset,), input_dataset.element_spec)
        self._path = os.fspath(path)

    def _elements(self) -> PyIterator[Any]:
        if os.path.exists(os.path.join(self._path, _SPEC)):
            yield from LoadDataset(self._path, self._element_spec)._elements()
            return
        os.makedirs(self._path, exist_ok=True)
        tmp = os.path.join(self._path, _DATA + f".tmp{os.getpid()}")
        w = TFRecordWriter(tmp)
        complete = False
        try:
            for e in self._inputs[0]._elements():
                w.write(_record(e))
                yield e
            complete = True
        finally:
            w.close()
            if not complete:  # a partial pass leaves no snapshot
                os.remove(tmp)
        os.replace(tmp, os.path.join(self._path, _DATA))
        with open(os.path.join(self._path, _SPEC), "w") as f:
            json.dump({"element_spec": _encode_spec(self._element_spec)}, f)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()
