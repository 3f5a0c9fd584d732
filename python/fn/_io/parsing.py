"""``tf.io.parse_example`` / ``parse_single_example`` and the feature configurations
(``FixedLenFeature``, ``FixedLenSequenceFeature``, ``VarLenFeature``, ``RaggedFeature``).

Serialized ``tf.train.Example`` protos are decoded with protobuf on the host (eagerly, or by a
host callback each time a graph runs, as TF's ``ParseExampleV2`` kernel runs on the CPU), with
TF's checks and messages. Outputs are dicts keyed like ``features``: dense tensors, a
``SparseTensor`` for ``VarLenFeature`` and a ``RaggedTensor`` for ``RaggedFeature``.
"""

from __future__ import annotations

import collections
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from google.protobuf.message import DecodeError

from fn import _core
from fn._ops.op_errors import op_error
from fn.dtypes import as_dtype, float32, int32, int64, string
from fn.errors import InvalidArgumentError
from fn._io.example_pb import Example
from fn._sparse.sparse_tensor import SparseTensor
from fn._ragged import RaggedTensor
from fn._tensor.tensor_shape import TensorShape

_OP = "ParseExampleV2"
_KINDS = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
_KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """``tf.io.FixedLenFeature``: a dense feature of a fixed ``shape``."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> "FixedLenFeature":
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple("FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])
):
    """``tf.io.FixedLenSequenceFeature``: a variable number of items of ``shape``, padded."""

    def __new__(
        cls, shape: Any, dtype: Any, allow_missing: bool = False, default_value: Any = None
    ) -> "FixedLenSequenceFeature":
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """``tf.io.VarLenFeature``: a variable number of values, parsed to a ``SparseTensor``."""


class RaggedFeature(
    collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])
):
    """``tf.io.RaggedFeature`` (without partitions): a variable number of values per example,
    parsed to a ``RaggedTensor``."""

    def __new__(
        cls,
        dtype: Any,
        value_key: Optional[str] = None,
        partitions: Sequence[Any] = (),
        row_splits_dtype: Any = int32,
        validate: bool = False,
    ) -> "RaggedFeature":
        if partitions:
            raise NotImplementedError("fn's RaggedFeature does not support `partitions` yet.")
        return super().__new__(cls, as_dtype(dtype), value_key, tuple(partitions), as_dtype(row_splits_dtype), validate)

    def __repr__(self) -> str:
        return (
            f"RaggedFeature(dtype={self.dtype!r}, value_key={self.value_key!r}, partitions={self.partitions!r}, "
            f"row_splits_dtype={self.row_splits_dtype!r}, validate={self.validate!r})"
        )


def _repr_dtype(self: Any) -> str:
    fields = ", ".join(f"{n}={(repr(as_dtype(v)) if n == 'dtype' else repr(v))}" for n, v in zip(self._fields, self))
    return f"{type(self).__name__}({fields})"


for _c in (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature):
    _c.__repr__ = _repr_dtype  # type: ignore[method-assign]


# ---------------------------------------------------------------- configuration


def _check_features(features: Dict[str, Any]) -> List[Tuple[str, Any]]:
    if not isinstance(features, dict):
        raise TypeError(f"Expected features to be a dict, got {features!r}")
    if not features:
        raise ValueError("Missing: features was empty.")
    out = []
    order: Dict[type, int] = {VarLenFeature: 0, FixedLenFeature: 1, FixedLenSequenceFeature: 1, RaggedFeature: 2}
    for key in sorted(features, key=lambda k: (order.get(type(features[k]), 3), k)):
        f = features[key]
        if not isinstance(f, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, RaggedFeature)):
            raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")
        dt = as_dtype(f.dtype)
        if dt.name not in _KINDS:
            raise op_error(
                InvalidArgumentError,
                _OP,
                f"Value for attr 'Tdense' of {dt.name} is not in the list of allowed values: float, int64, string",
            )
        if isinstance(f, FixedLenFeature):
            shape = list(f.shape) if f.shape is not None else None
            if shape is None or any(d is None for d in shape):
                raise ValueError(
                    f"First dimension of shape for feature {key} unknown. Consider using "
                    f"FixedLenSequenceFeature. Received feature={f}."
                )
        out.append((key, f))
    return out


def _np_dtype(dt: Any) -> Any:
    return object if dt == string else dt.as_numpy_dtype


def _values(ex: Any, key: str, want: Any, index: int) -> Optional[np.ndarray]:
    """The values of feature ``key`` (None if absent), checked against dtype ``want``."""
    feats = ex.features.feature
    if key not in feats:
        return None
    feat = feats[key]
    kind = feat.WhichOneof("kind")
    if kind is None:
        return np.zeros([0], _np_dtype(want))
    if kind != _KINDS[want.name]:
        raise op_error(
            InvalidArgumentError,
            _OP,
            f"Name: <unknown>, Key: {key}, Index: {index}.  Data types don't "
            f"match. Data type: {_KIND_NAMES[kind]} but expected type: "
            f"{_KIND_NAMES[_KINDS[want.name]]}",
        )
    vals = getattr(feat, kind).value
    if want == string:
        return np.array(list(vals), dtype=object)
    return np.asarray(vals, dtype=want.as_numpy_dtype)


def _default(f: Any, dt: Any, shape: List[int]) -> Optional[np.ndarray]:
    if f.default_value is None:
        return None
    d = np.asarray(f.default_value, dtype=_np_dtype(dt))
    if dt == string:
        d = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(d)
    return np.broadcast_to(d, shape).copy() if d.size == 1 else d.reshape(shape)


def _parse(serialized: np.ndarray, features: List[Tuple[str, Any]], single: bool) -> List[np.ndarray]:
    """The flat outputs: per key in sorted order, 1 dense array, 3 sparse arrays or 2 ragged."""
    examples = []
    for s in serialized.reshape(-1):
        try:
            examples.append(Example.FromString(bytes(s)))
        except DecodeError:
            shown = bytes(s).decode("latin-1")
            raise op_error(InvalidArgumentError, _OP, f"Could not parse example input, value: '{shown}'") from None
    out: List[np.ndarray] = []
    for key, f in features:
        dt = as_dtype(f.dtype)
        vals = [
            _values(ex, key if not isinstance(f, RaggedFeature) else (f.value_key or key), dt, i)
            for i, ex in enumerate(examples)
        ]
        if isinstance(f, FixedLenFeature):
            out.append(_fixed(key, f, dt, vals, single))
        elif isinstance(f, FixedLenSequenceFeature):
            out.append(_sequence(key, f, dt, vals, single))
        elif isinstance(f, VarLenFeature):
            out.extend(_sparse(dt, vals, single))
        else:
            out.extend(_ragged(f, dt, vals, single))
    return out


def _fixed(key: str, f: Any, dt: Any, vals: List[Optional[np.ndarray]], single: bool) -> np.ndarray:
    shape = [int(d) for d in f.shape]
    size = int(np.prod(shape)) if shape else 1
    rows = []
    for i, v in enumerate(vals):
        if v is None:
            d = _default(f, dt, shape)
            if d is None:
                kind = dt.name if dt != float32 else "float"
                raise op_error(
                    InvalidArgumentError,
                    _OP,
                    f"Name: <unknown>, Feature: {key} (data type: {kind}) is required but could not be found.",
                )
            rows.append(d)
            continue
        if v.size != size:
            shown = "[" + ",".join(str(d) for d in shape) + "]"
            raise op_error(
                InvalidArgumentError,
                _OP,
                f"Name: <unknown>, Key: {key}, Index: {i}.  Number of "
                f"{_KIND_NAMES[_KINDS[dt.name]]} values != expected.  Values "
                f"size: {v.size} but output shape: {shown}",
            )
        rows.append(v.reshape(shape))
    if single:
        return rows[0]
    return np.stack(rows) if rows else np.zeros([0] + shape, _np_dtype(dt))


def _sequence(key: str, f: Any, dt: Any, vals: List[Optional[np.ndarray]], single: bool) -> np.ndarray:
    shape = [int(d) for d in f.shape]
    size = int(np.prod(shape)) if shape else 1
    rows = []
    for i, v in enumerate(vals):
        if v is None:
            if not f.allow_missing:
                raise op_error(
                    InvalidArgumentError,
                    _OP,
                    f"Name: <unknown>, Feature list: {key} (data type: "
                    f"{_KIND_NAMES[_KINDS[dt.name]]}) is required but could "
                    "not be found.",
                )
            v = np.zeros([0], _np_dtype(dt))
        if v.size % size:
            raise op_error(
                InvalidArgumentError,
                _OP,
                f"Name: <unknown>, Key: {key}, Index: {i}.  Number of "
                f"{_KIND_NAMES[_KINDS[dt.name]]} values is not a multiple of "
                f"stride length. Saw {v.size} values but output shape is: "
                f"[?{''.join(',' + str(d) for d in shape)}]",
            )
        rows.append(v.reshape([-1] + shape))
    n = max((r.shape[0] for r in rows), default=0)
    pad = f.default_value if f.default_value is not None else (b"" if dt == string else 0)
    out = np.full([len(rows), n] + shape, pad, dtype=_np_dtype(dt))
    for i, r in enumerate(rows):
        out[i, : r.shape[0]] = r
    return out[0] if single else out


def _sparse(dt: Any, given: List[Optional[np.ndarray]], single: bool) -> List[np.ndarray]:
    vals = [v if v is not None else np.zeros([0], _np_dtype(dt)) for v in given]
    n = max((v.size for v in vals), default=0)
    if single:
        v = vals[0]
        return [np.arange(v.size, dtype=np.int64).reshape(-1, 1), v, np.array([v.size], np.int64)]
    idx = [np.stack([np.full(v.size, i), np.arange(v.size)], 1) for i, v in enumerate(vals)]
    indices = np.concatenate(idx).astype(np.int64) if idx else np.zeros([0, 2], np.int64)
    values = np.concatenate(vals) if vals else np.zeros([0], _np_dtype(dt))
    return [indices.reshape(-1, 2), values.astype(_np_dtype(dt)), np.array([len(vals), n], np.int64)]


def _ragged(f: Any, dt: Any, given: List[Optional[np.ndarray]], single: bool) -> List[np.ndarray]:
    vals = [v if v is not None else np.zeros([0], _np_dtype(dt)) for v in given]
    if single:
        return [vals[0]]
    splits = np.concatenate([[0], np.cumsum([v.size for v in vals])]).astype(f.row_splits_dtype.as_numpy_dtype)
    values = np.concatenate(vals).astype(_np_dtype(dt)) if vals else np.zeros([0], _np_dtype(dt))
    return [values, splits]


# ---------------------------------------------------------------- outputs


def _out_specs(features: List[Tuple[str, Any]], batch: Any, single: bool) -> List[Tuple[Any, List[Any]]]:
    """(dtype, static shape) of every flat output."""
    lead = [] if single else [batch]
    specs: List[Tuple[Any, List[Any]]] = []
    for _, f in features:
        dt = as_dtype(f.dtype)
        if isinstance(f, FixedLenFeature):
            specs.append((dt, lead + [int(d) for d in f.shape]))
        elif isinstance(f, FixedLenSequenceFeature):
            specs.append((dt, lead + [None] + [int(d) for d in f.shape]))
        elif isinstance(f, VarLenFeature):
            r = len(lead) + 1
            specs += [(int64, [None, r]), (dt, [None]), (int64, [r])]
        else:
            splits = (f.row_splits_dtype, [None if batch is None else batch + 1])
            specs += [(dt, [None])] if single else [(dt, [None]), splits]
    return specs


def _pack(features: List[Tuple[str, Any]], flat: List[Any], single: bool) -> Dict[str, Any]:

    it = iter(flat)
    out: Dict[str, Any] = {}
    for key, f in features:
        if isinstance(f, VarLenFeature):
            out[key] = SparseTensor(next(it), next(it), next(it))
        elif isinstance(f, RaggedFeature) and not single:
            values = next(it)
            out[key] = RaggedTensor.from_row_splits(values, next(it), validate=False)
        else:
            out[key] = next(it)
    return out


def parse_example(
    serialized: Any, features: Dict[str, Any], example_names: Any = None, name: Optional[str] = None
) -> Dict[str, Any]:
    """``tf.io.parse_example``: a batch (vector) of serialized ``Example`` protos parsed into a
    dict of tensors with a leading batch dimension (a scalar parses as one example)."""
    feats = _check_features(features)
    x = serialized if _core.is_tensor(serialized) else _core.convert_to_tensor(serialized, string)
    if x.dtype != string:
        raise TypeError(f"Expected string passed to parameter 'serialized' of op '{_OP}', got {x.dtype.name}.")
    rank = x.shape.rank
    if rank is not None and rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {rank} for '{{{{node {_OP}}}}} = {_OP}'")
    single = rank == 0
    batch = None if single or rank is None else x.shape[0]
    specs = _out_specs(feats, batch, single)

    def run(v: Any) -> List[np.ndarray]:
        arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=object)
        return _parse(arr, feats, arr.ndim == 0)

    if _core.executing_eagerly() and x._is_eager:
        flat = [_core.to_eager(a, dt) for a, (dt, _) in zip(run(x), specs)]
    else:

        def call(v: Any) -> List[Any]:
            return [_core.to_eager(a, dt) for a, (dt, _) in zip(run(v), specs)]

        flat = _core.execute(
            "PyCall",
            [x],
            {"callable": call, "Tout": [dt for dt, _ in specs], "Tout_shapes": [TensorShape(s) for _, s in specs]},
            _OP,
        )
    return _pack(feats, list(flat), single)


def parse_single_example(
    serialized: Any, features: Dict[str, Any], example_names: Any = None, name: Optional[str] = None
) -> Dict[str, Any]:
    """``tf.io.parse_single_example``: one serialized ``Example`` (a scalar) parsed into a dict
    of tensors."""
    x = serialized if _core.is_tensor(serialized) else _core.convert_to_tensor(serialized, string)
    if x.shape.rank is not None and x.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {x.shape.rank} for '{{{{node {_OP}}}}} = {_OP}'")
    return parse_example(x, features, example_names, name)


__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "VarLenFeature",
    "RaggedFeature",
    "parse_example",
    "parse_single_example",
]
